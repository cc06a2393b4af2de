/**
 * A TCP proxy in front of a real server, so a test can make a dependency "go down" (close the proxy and
 * cut its connections) without stopping the shared server.
 */
import net from 'node:net';

export interface TcpProxy {
  port: number;
  /** Stops accepting and cuts every open connection. */
  close(): Promise<void>;
}

/** `listenPort` 0 takes a free port; a port a closed proxy had brings the dependency "back up" at the same address. */
export function startTcpProxy(targetPort: number, targetHost = '127.0.0.1', listenPort = 0): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(targetPort, targetHost);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => socket.destroy());
    }
    client.pipe(upstream).pipe(client);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(listenPort, '127.0.0.1', () => {
      resolve({
        port: (server.address() as net.AddressInfo).port,
        close: () =>
          new Promise<void>((done) => {
            for (const socket of sockets) socket.destroy();
            server.close(() => done());
          }),
      });
    });
  });
}

/**
 * A load balancer of the simplest kind on an already listening server (a port reservation, test/helpers/ports.ts):
 * each new connection goes to the next target in turn. Returns a function that cuts every open connection.
 */
export function roundRobin(server: net.Server, targetPorts: readonly number[]): () => void {
  const sockets = new Set<net.Socket>();
  let next = 0;
  server.on('connection', (client) => {
    const upstream = net.connect(targetPorts[next++ % targetPorts.length], '127.0.0.1');
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => socket.destroy());
    }
    client.pipe(upstream).pipe(client);
  });
  return () => {
    for (const socket of sockets) socket.destroy();
  };
}
