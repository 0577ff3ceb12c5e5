/** The abort reason when the client went away: nothing is sent to anyone after it. */
export class ClientGoneError extends Error {
  constructor() {
    super('the client closed the connection');
    this.name = 'ClientGoneError';
  }
}
