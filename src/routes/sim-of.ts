import type { FastifyRequest } from 'fastify';
import type { Simulator } from '../core/simulator.js';

/**
 * Which simulator a request is for. A single-tenant server has one for every request; in hosted
 * mode each tenant holds its own, found from the route's tenant id (src/routes/tenant-scope.ts).
 * The routes ask for it per request and never ask which case they are in.
 */
export type SimOf = (request: FastifyRequest) => Simulator;

/** The one simulator of a single-tenant server. */
export const always =
  (sim: Simulator): SimOf =>
  () =>
    sim;

/** Hosted mode: a signal that ends a request's event stream (its token was rotated), if any. */
export type EndOf = (request: FastifyRequest) => AbortSignal | undefined;

/** Hosted mode: the tenant a request's signed report names. */
export type SignedFor = (request: FastifyRequest) => { id: string; name: string } | undefined;
