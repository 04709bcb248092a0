import './index.js'; // the built-in events, registered with the protocol (before anything reads the registry)
import type { Protocol } from '../port.js';
import { type Code, FAILED, SUCCESS, UNAUTHORIZED } from './codes.js';
import { readCallback } from './read.js';
import { maskKey } from './reply-read.js';
import { buildReply, headerSafe, journalledBody, reasonFor, replyHeadersFor } from './reply.js';
import { HEADER } from './wire.js';

/**
 * This spec (login, bet, bet_result; R0–R4; Api-Id, Api-Key, Callback-URL) as the core's protocol.
 * The core passes back only the codes it was given here or read with `read`.
 */
export const seedProtocol: Protocol = {
  read: readCallback,
  reply: (code, eventType, userId, balance) => buildReply(code as Code, eventType, userId, balance),
  replyHeaders: replyHeadersFor,
  reason: (code, findings, forcedBy, balance, req) => reasonFor(code as Code, findings, forcedBy, balance, req),
  journalledBody,
  headerSafe,
  maskKey,
  codes: { applied: SUCCESS, failed: FAILED, unauthorized: UNAUTHORIZED },
  headers: HEADER,
};
