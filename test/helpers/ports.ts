import net from 'node:net';

/** A port the OS just handed out, so parallel runs and a running `npm start` never collide. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/**
 * A port held open until the API takes it over (startApi accepts the reservation and listens on its handle).
 * freePort() closes its port at once, so anything started meanwhile (the Temporal dev server, an outgoing
 * connection's local port) may take it: CI once lost the API's port that way (EADDRINUSE at startApi).
 */
export function reservePort(): Promise<{ port: number; reservation: net.Server }> {
  return new Promise((resolve, reject) => {
    const reservation = net.createServer();
    reservation.once('error', reject);
    reservation.listen(0, () => resolve({ port: (reservation.address() as net.AddressInfo).port, reservation }));
  });
}
