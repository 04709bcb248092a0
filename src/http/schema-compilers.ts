import { AjvCompiler } from '@fastify/ajv-compiler';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';
import { type Validate, validatorAtFirstCall } from './validator-at-first-call.js';

type Factories = NonNullable<FastifyServerOptions['schemaController']>['compilersFactory'];

/**
 * Fastify's own schema compilers (the same Ajv options, formats and serializers), each route's
 * schema compiled at its first use instead of when the app starts. Fastify compiles every route's
 * validators and reply serializers at start-up, and a run calls few of the routes: compiling them
 * all was about a quarter of a CLI start (`wallet-sim start`, 29 Nov 2026: Ajv and
 * fast-json-stringify 0.5 s of its 2 s of CPU under the profiler). The validators' Ajv is also
 * shared by every app of a process (Fastify keys its pool by the shared schemas and options), so a
 * second app compiles nothing that a first has. `eager` compiles at start-up, as Fastify does: a
 * test builds the apps so to show that every schema compiles.
 */
export function schemaCompilers(eager = false): Factories {
  if (eager) return undefined;
  return { buildValidator: lazyValidators, buildSerializer: lazySerializers } as unknown as Factories;
}

type RouteSchema = { schema: object };
type Compiler<F> = (route: RouteSchema) => F;

const validators = AjvCompiler() as unknown as (external: object, options: object) => Compiler<Validate>;
const serializers = SerializerSelector() as unknown as (external: object, options: object) => Compiler<(data: unknown) => string>;

function lazyValidators(external: object, options: object): Compiler<Validate> {
  let compiler: Compiler<Validate> | undefined;
  return (route) => validatorAtFirstCall(() => (compiler ??= validators(external, options))(route));
}

function lazySerializers(external: object, options: object): Compiler<(data: unknown) => string> {
  let compiler: Compiler<(data: unknown) => string> | undefined;
  return (route) => {
    let compiled: ((data: unknown) => string) | undefined;
    return (data) => (compiled ??= (compiler ??= serializers(external, options))(route))(data);
  };
}
