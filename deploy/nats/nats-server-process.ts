import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'nats';
import { freePort } from '@svc/testing';
import { NATS_SERVER_MISSING, findNatsServer } from '../local/local-servers';

/** A nats-server of the test's own, on a free loopback port, with a config file and a JetStream directory of its own. */
export interface NatsServerProcess {
  url: string;
  /** The environment the server was started with (the account passwords). */
  env: Record<string, string>;
  stop(): Promise<void>;
}

/** Starts `nats-server -c <configFile> -js` with `env` and waits until it accepts connections. */
export async function startNatsServer(configFile: string, env: Record<string, string>): Promise<NatsServerProcess> {
  const binary = findNatsServer();
  if (!binary) throw new Error(NATS_SERVER_MISSING);
  const port = await freePort();
  const storeDir = mkdtempSync(join(tmpdir(), 'nats-js-'));
  const output: string[] = [];
  const child: ChildProcess = spawn(binary, ['-c', configFile, '-js', '-sd', storeDir, '-a', '127.0.0.1', '-p', String(port)], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `nats://127.0.0.1:${port}`;
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(storeDir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`nats-server exited with ${child.exitCode}: ${output.join('').slice(-2_000)}`);
    }
    try {
      // Any answer (even an authorization refusal) proves the server listens.
      const nc = await connect({ servers: url, timeout: 500, reconnect: false });
      await nc.close();
      break;
    } catch (error) {
      if (String((error as { code?: string }).code) === 'AUTHORIZATION_VIOLATION') break;
      if (Date.now() > deadline) {
        await stop();
        throw new Error(`nats-server did not listen on ${url}: ${output.join('').slice(-2_000)}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  return { url, env, stop };
}
