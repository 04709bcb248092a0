/**
 * Where the report travels beside its envelope: the envelope's file name with its `.json`
 * extension (if any) replaced by `.report.json` (evidence.json → evidence.report.json,
 * evidence.dsse → evidence.dsse.report.json). `report --signed` writes it; verify-report reads it.
 */
export const reportBeside = (envelopeFile: string): string => `${envelopeFile.replace(/\.json$/i, '')}.report.json`;

/** keygen's file names in its --out directory. */
export const PRIVATE_KEY_FILE = 'wallet-sim-signing.pem';
export const PUBLIC_KEY_FILE = 'wallet-sim-signing.pub.pem';
