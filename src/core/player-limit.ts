/** A new player past the backend's `maxPlayers` (hosted mode's --tenant-players): nothing changed. */
export class PlayerLimit extends Error {
  constructor(readonly max: number) {
    super(`the wallet holds ${max} players, its most`);
  }
}
