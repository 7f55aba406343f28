import type { ChildProcess } from 'node:child_process';

/**
 * The next IPC message of `type` from a benchmark's child process (a load generator, a server of
 * its own). Rejects, naming the child, when it sends `{ type: 'failed', message }` or exits first.
 */
export function nextMessage<M extends { type: string }, T extends M['type']>(
  child: ChildProcess,
  name: string,
  type: T,
): Promise<Extract<M, { type: T }>> {
  return new Promise((resolve, reject) => {
    if (child.exitCode !== null || child.signalCode !== null) {
      reject(new Error(`${name} exited with ${String(child.exitCode ?? child.signalCode)}`));
      return;
    }
    const stopListening = () => {
      child.off('message', onMessage);
      child.off('exit', onExit);
    };
    const onMessage = (message: { type: string; message?: string }) => {
      if (message.type === 'failed') {
        stopListening();
        reject(new Error(`${name}: ${message.message ?? 'failed'}`));
      } else if (message.type === type) {
        stopListening();
        resolve(message as Extract<M, { type: T }>);
      }
    };
    const onExit = (code: number | null) => {
      stopListening();
      reject(new Error(`${name} exited with ${String(code)}`));
    };
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}
