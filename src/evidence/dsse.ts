/*
 * DSSE (Dead Simple Signing Envelope, github.com/secure-systems-lab/dsse): the signature covers
 * the pre-authentication encoding of the payload's type and bytes, never a re-serialised JSON,
 * so what is verified is exactly what was signed.
 */

/** The payload type of an in-toto Statement. */
export const IN_TOTO_PAYLOAD_TYPE = 'application/vnd.in-toto+json' as const;

/** An envelope as read from a file, before anything is known of it (the one served is schemas/dsse-envelope.schema.json). */
export interface ParsedEnvelope {
  payloadType: string;
  payload: string;
  signatures: { keyid?: unknown; sig: string }[];
}

/** PAE: "DSSEv1" SP len(type) SP type SP len(body) SP body, lengths as decimal byte counts. */
export function pae(payloadType: string, body: Buffer): Buffer {
  const type = Buffer.from(payloadType, 'utf8');
  return Buffer.concat([Buffer.from(`DSSEv1 ${type.length} `), type, Buffer.from(` ${body.length} `), body]);
}

/**
 * Standard or URL-safe base64 (DSSE allows both) decoded strictly: undefined for anything else,
 * so an edited character never decodes to the same bytes by Node's lenient decoder skipping it.
 */
export function strictBase64(text: string): Buffer | undefined {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) && !/^[A-Za-z0-9_-]*={0,2}$/.test(text)) return undefined;
  const standard = text.replace(/-/g, '+').replace(/_/g, '/');
  const bytes = Buffer.from(standard, 'base64');
  return bytes.toString('base64').replace(/=+$/, '') === standard.replace(/=+$/, '') ? bytes : undefined;
}
