import { generateKeyPairSync } from 'node:crypto';
import { closeSync, existsSync, fchmodSync, openSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { Command } from 'commander';
import { PRIVATE_KEY_FILE, PUBLIC_KEY_FILE } from '../evidence/beside.js';
import { keyIdOf } from '../evidence/signing-key.js';
import { markRequired, namesItsHelp } from './options.js';
import { makeDirectory, refusal } from './output-file.js';

interface KeygenOptions {
  out: string;
  force: boolean;
}

/** Writes a file that did not exist (mode set even under a umask that would loosen it). */
function writeNew(path: string, text: string, mode: number): void {
  const fd = openSync(path, 'wx', mode);
  try {
    fchmodSync(fd, mode);
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
}

export function keygenCommand(): Command {
  return namesItsHelp(markRequired(new Command('keygen')))
    .description(
      `Write an Ed25519 key pair for signed reports: ${PRIVATE_KEY_FILE} (private, PKCS#8, mode 0600: for start --signing-key) ` +
        `and ${PUBLIC_KEY_FILE} (public, SPKI: for verify-report)`,
    )
    .requiredOption('--out <dir>', 'directory to write the two files to (created when missing)')
    .option('--force', 'replace key files already there (reports signed with the old key no longer verify with the new public key)', false)
    .action((o: KeygenOptions) => {
      const privatePath = join(o.out, PRIVATE_KEY_FILE);
      const publicPath = join(o.out, PUBLIC_KEY_FILE);
      const there = [privatePath, publicPath].filter((p) => existsSync(p));
      if (there.length && !o.force) {
        console.error(
          `wallet-sim keygen: ${there.join(' and ')} already exist${there.length === 1 ? 's' : ''}; nothing written. ` +
            'Keep the key you have (its public key may be handed out already), choose another --out, ' +
            'or pass --force to replace the pair (reports signed with the old key then verify only with the old public key)',
        );
        process.exitCode = 1;
        return;
      }
      const { privateKey, publicKey } = generateKeyPairSync('ed25519');
      try {
        makeDirectory(o.out, 0o700);
        for (const p of there) unlinkSync(p);
        writeNew(privatePath, privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), 0o600);
        writeNew(publicPath, publicKey.export({ type: 'spki', format: 'pem' }).toString(), 0o644);
      } catch (e) {
        console.error(`wallet-sim keygen: ${refusal(o.out, e, '--out', 'directory')}`);
        process.exitCode = 1;
        return;
      }
      console.log(
        [
          `wallet-sim keygen: wrote ${privatePath} (private key, mode 0600: keep it on the signing server only)`,
          `                   and ${publicPath} (public key: give it to whoever verifies reports)`,
          `keyid ${keyIdOf(publicKey)}`,
          `sign:   wallet-sim start --signing-key ${privatePath}`,
          `verify: wallet-sim verify-report <envelope> --public-key ${publicPath}`,
        ].join('\n'),
      );
    });
}
