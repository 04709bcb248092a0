import type { BackendOptions } from '../backend.js';
import { LocalBackend } from '../local/local-backend.js';
import { FilePersistence, type FilePersistenceOptions } from './file-persistence.js';

/** `--store file --data <path>`: the wallet in this process, durable in a change log and a snapshot (docs/store.md). */
export class FileBackend extends LocalBackend {
  /** Opens (and locks) the files at `path`; a file that cannot be opened throws a StoreError. */
  static async open(path: string, options: BackendOptions & FilePersistenceOptions = {}): Promise<FileBackend> {
    return new FileBackend('file', await FilePersistence.open(path, options), options);
  }
}
