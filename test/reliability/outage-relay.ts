// A TCP relay to PostgreSQL for outage tests: it can play a stopped server
// (connections reset, port refusing) and a silent one (connections accepted,
// never answered), then come back on the same port. The real server is never
// touched, so other tests sharing it are not disturbed.
import net from 'node:net';

type Mode = 'relay' | 'silent';

/** A TCP relay to PostgreSQL that can stop (refuse), go silent, and come back on the same port. */
export class Relay {
  private server = net.createServer((client) => this.accept(client));
  private pairs = new Set<net.Socket>();
  private mode: Mode = 'relay';
  port = 0;

  constructor(private readonly target: { host: string; port: number }) {}

  async listen(): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.port, '127.0.0.1', () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    this.port = (this.server.address() as net.AddressInfo).port;
  }

  private accept(client: net.Socket): void {
    this.pairs.add(client);
    client.on('close', () => this.pairs.delete(client));
    client.on('error', () => {});
    if (this.mode === 'silent') return; // accepted, never answered
    const upstream = net.connect(this.target.port, this.target.host);
    this.pairs.add(upstream);
    upstream.on('close', () => this.pairs.delete(upstream));
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  }

  /** Reset every connection (RST, as when the server process dies). */
  private resetAll(): void {
    for (const socket of this.pairs) socket.resetAndDestroy();
  }

  /** Every open connection is reset (RST); new ones are relayed as before. */
  cut(): void {
    this.resetAll();
  }

  /** The server stops: connections reset, the port refuses new ones. */
  async stop(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.resetAll();
    await closed;
  }

  /** The server hangs: connections reset, new ones accepted and never answered. */
  async silent(): Promise<void> {
    this.mode = 'silent';
    this.resetAll();
  }

  /** Back to normal (listening again on the same port if stopped). */
  async restore(): Promise<void> {
    if (this.mode === 'silent') {
      this.mode = 'relay';
      this.resetAll(); // the held connections die; nothing half-forwarded lingers
    }
    if (!this.server.listening) await this.listen();
  }

  async close(): Promise<void> {
    this.resetAll();
    if (this.server.listening) await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

