import { formatCheckpoint } from '@svc/merkle';

/**
 * The C2SP checkpoint text of the chain head: origin, size and base64 Merkle root, then two
 * extension lines binding the chain head itself, `head <hex hash of the last entry>` and
 * `time <POSIX seconds>`, so the signed note states size, head hash and time (issue 9 Deliver 2).
 */
export function checkpointBody(origin: string, size: number, rootHash: Uint8Array, headHash: string, time: Date): string {
  return formatCheckpoint({
    origin,
    size,
    rootHash,
    extensions: [`head ${headHash}`, `time ${Math.floor(time.getTime() / 1000)}`],
  });
}
