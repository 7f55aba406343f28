/**
 * svc-audit: offline verification of a region's audit chain, straight from its Postgres database
 * (read-only: no migration, no write). Prints one JSON object on stdout.
 *
 *   npx svc-audit verify --region us [--from-checkpoint <sequence>] [--database-url <postgres url>]
 *   npx svc-audit verify-evidence --package <file> [--jwks <file>] [--witness-key <verifier key>]
 *
 * Recomputes every entry hash from genesis (or from a stored checkpoint whose Ed25519 signature
 * verifies with the region key) and every signed checkpoint's Merkle root, and reports the first
 * broken index. `verify-evidence` checks an evidence package (the compact JWS of
 * `POST /api/v1/transfer_register/evidence_package`, `/residency_posture/evidence_package` or
 * `/api/v1/evidence_packages`)
 * offline, with no network: its signature (with the region JWKS file given, else the keys it
 * embeds), every audit inclusion proof against its signed checkpoint, the witness cosignature when
 * a witness key is given, that every crossing is the one its audit entry records, and for an
 * audit-period package that every receipt, withdrawal and other entry is proven and every
 * checkpoint of the period is signed by a region key. Exit codes: 0 the chain verifies, 1 it does not (or cannot be read), 2 usage
 * (printed on stderr; `--help` prints it on stdout and exits 0).
 * The database defaults to the region's (`DATABASE_URL_TEMPLATE`, `{region}` replaced).
 *
 * The platform libraries load only after the arguments are checked, so `--help` and usage errors
 * answer at once.
 */
import type { Region } from '@svc/config';
import type { Ed25519PublicJwk } from '@svc/crypto';
import type { DataSource } from 'typeorm';

class UsageError extends Error {}

const USAGE = `usage: svc-audit verify --region <us|eu|ap> [--from-checkpoint <sequence>] [--database-url <postgres url>]
       svc-audit verify-evidence --package <file> [--jwks <file>] [--witness-key <verifier key>]`;

const HELP = `${USAGE}

Recomputes a region's audit chain from its Postgres database (read-only) and prints one JSON object
on stdout: {"region","valid","verified_size","checkpoints_verified","first_broken_index",...}.
The database defaults to DATABASE_URL_TEMPLATE with {region} replaced.

verify-evidence reads an evidence package (a compact JWS file) and verifies it offline: signature,
audit inclusion proofs, checkpoint signatures, optional witness cosignature, and for an audit-period
package (POST /api/v1/evidence_packages) the indexed receipts and withdrawals; it prints
{"valid","kind","region","transfers","proofs_verified","receipts","withdrawals","checkpoints_verified","witnessed","failures",...}.

Exit codes: 0 the chain (or package) verifies, 1 it does not (or cannot be read), 2 usage.`;

const HELP_ARGUMENTS = new Set(['--help', '-h', 'help']);

function parseFlags(
  args: readonly string[],
  allowed: readonly string[] = ['region', 'from-checkpoint', 'database-url'],
): Record<string, string> {
  const flags: Record<string, string> = {};
  for (let i = 0; i < args.length; i += 2) {
    const name = args[i];
    const value = args[i + 1];
    if (!name?.startsWith('--') || value === undefined || value.startsWith('--'))
      throw new UsageError(`expected --flag value, got "${name ?? ''}"`);
    if (!allowed.includes(name.slice(2))) throw new UsageError(`unknown flag ${name}`);
    flags[name.slice(2)] = value;
  }
  return flags;
}

/** Region public keys by kid, read from the platform key table (public halves only). */
async function keyResolver(dataSource: DataSource) {
  const { importEd25519PublicJwk } = await import('@svc/crypto');
  const { KEYS_SCHEMA } = await import('@svc/key-store');
  return async (kid: string) => {
    const rows: Array<{ public_jwk: Ed25519PublicJwk }> = await dataSource.query(
      `SELECT public_jwk FROM "${KEYS_SCHEMA}".signing_keys WHERE kid = $1`,
      [kid],
    );
    const jwk = rows[0]?.public_jwk;
    return jwk ? importEd25519PublicJwk(jwk) : undefined;
  };
}

/**
 * The region database, as the local stack names it (`DATABASE_URL_TEMPLATE`, `{region}` replaced;
 * the same rule as @svc/region-stack, not imported so that the CLI does not load every service).
 */
function regionDatabaseUrl(region: Region): string {
  return (process.env.DATABASE_URL_TEMPLATE ?? 'postgres://postgres@127.0.0.1:5432/svc_{region}').replace('{region}', region);
}

async function verify(flags: Record<string, string>): Promise<{ result: Record<string, unknown>; valid: boolean }> {
  const { isRegion } = await import('@svc/config');
  const region = flags.region;
  if (!isRegion(region)) throw new UsageError('--region must be us, eu or ap');
  let fromCheckpoint: number | undefined;
  if (flags['from-checkpoint'] !== undefined) {
    if (!/^[1-9][0-9]{0,15}$/.test(flags['from-checkpoint']))
      throw new UsageError('--from-checkpoint must be a checkpoint sequence number (1, 2, ...)');
    fromCheckpoint = Number(flags['from-checkpoint']);
  }
  // Loaded after the arguments are checked: a usage error answers at once.
  const { AuditEntriesRepository, CheckpointsRepository, VerifyChain, auditChainGenesisHash } = await import('@svc/audit-chain');
  const { createDataSource } = await import('@svc/persistence');
  const dataSource = createDataSource({
    url: flags['database-url'] ?? regionDatabaseUrl(region),
    poolSize: 2,
    applicationName: 'svc-audit',
  });
  await dataSource.initialize();
  try {
    const entries = new AuditEntriesRepository(dataSource);
    const outcome = await new VerifyChain(entries, new CheckpointsRepository(dataSource), await keyResolver(dataSource)).execute(
      fromCheckpoint,
    );
    return {
      valid: outcome.valid,
      result: {
        region,
        valid: outcome.valid,
        genesis_hash: await auditChainGenesisHash(dataSource),
        verified_from_index: outcome.verifiedFromIndex,
        verified_size: outcome.verifiedSize,
        head_hash: outcome.headHash,
        checkpoints_verified: outcome.checkpointsVerified,
        first_broken_index: outcome.firstBrokenIndex,
        reason: outcome.reason,
        checkpoint_sequence: outcome.checkpointSequence,
        invalid_checkpoints: outcome.invalidCheckpoints,
      },
    };
  } finally {
    await dataSource.destroy();
  }
}

async function verifyEvidence(flags: Record<string, string>): Promise<{ result: Record<string, unknown>; valid: boolean }> {
  if (!flags.package) throw new UsageError('--package <file> is required');
  const { readFile } = await import('node:fs/promises');
  const jws = (await readFile(flags.package, 'utf8')).trim();
  const trustedJwks = flags.jwks
    ? (JSON.parse(await readFile(flags.jwks, 'utf8')) as { keys: import('@svc/crypto').SigningJwk[] })
    : undefined;
  const { verifyEvidencePackage } = await import('@svc/audit-chain');
  const outcome = await verifyEvidencePackage(jws, { trustedJwks, witnessKey: flags['witness-key'] });
  return { valid: outcome.valid, result: { ...outcome } };
}

async function main(argv: readonly string[]): Promise<number> {
  if (argv.some((arg) => HELP_ARGUMENTS.has(arg))) {
    process.stdout.write(`${HELP}\n`);
    return 0;
  }
  const [command, ...rest] = argv;
  if (command !== 'verify' && command !== 'verify-evidence')
    throw new UsageError(command === undefined ? 'missing command' : `unknown command ${command}`);
  const { result, valid } =
    command === 'verify' ? await verify(parseFlags(rest)) : await verifyEvidence(parseFlags(rest, ['package', 'jwks', 'witness-key']));
  process.stdout.write(`${JSON.stringify(result)}\n`);
  return valid ? 0 : 1;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof UsageError) {
      process.stderr.write(`${error.message}\n${USAGE}\n`);
      process.exit(2);
    }
    void import('@svc/errors').then(({ isDomainError }) => {
      const message = isDomainError(error) ? `${error.code}: ${error.message}` : error instanceof Error ? error.message : String(error);
      process.stderr.write(`svc-audit: ${message}\n`);
      process.exit(1);
    });
  },
);
