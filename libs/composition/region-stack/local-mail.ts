import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A running MailDev: SMTP sink with a web inbox and a REST API (`GET /email`). */
export interface MailDev {
  smtpUrl: string;
  webUrl: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/**
 * Starts MailDev (the `maildev` package) in a child process on 127.0.0.1, its SMTP and web ports
 * given or free ones, keeping its mails in a temporary folder removed when it stops. The child
 * exits by itself when this process goes away, even killed (its stdin is a pipe from here).
 * Resolves once its web inbox answers (within 45 s).
 */
export async function startMailDev(ports: { smtp?: number; web?: number } = {}): Promise<MailDev> {
  const smtp = ports.smtp ?? (await freeTcpPort());
  const web = ports.web ?? (await freeTcpPort());
  const mailDirectory = mkdtempSync(join(tmpdir(), 'maildev-'));
  const config = { smtp, web, ip: '127.0.0.1', mailDirectory, silent: true };
  const program = `process.stdin.on('end', () => process.exit(0)); process.stdin.on('data', () => undefined); require(${JSON.stringify(require.resolve('maildev'))})(${JSON.stringify(config)}).listen();`;
  const child = spawn(process.execPath, ['-e', program], { stdio: ['pipe', 'ignore', 'ignore'] });
  const webUrl = `http://127.0.0.1:${web}`;
  const stop = async (): Promise<void> => {
    await stopMailDevChild(child);
    rmSync(mailDirectory, { recursive: true, force: true });
  };
  // Loading MailDev's modules takes seconds on a busy machine (a test run starting stacks beside it).
  const deadline = Date.now() + 45_000;
  for (;;) {
    try {
      if ((await fetch(`${webUrl}/healthz`)).ok) break;
    } catch {
      // not listening yet
    }
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`MailDev did not answer on ${webUrl}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { smtpUrl: `smtp://127.0.0.1:${smtp}`, webUrl, child, stop };
}

function stopMailDevChild(child: ChildProcess): Promise<void> {
  return new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
  });
}

function freeTcpPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}
