import { importEd25519PublicJwk, verifyCompactJws, type SigningJwk } from '@svc/crypto';
import { chainHash, ed25519NoteVerifier, leafHash, openCheckpoint, openNote, parseVerifierKey, verifyInclusion } from '@svc/merkle';

/** `typ` of an evidence package JWS (the transfer register's and posture's, and audit-chain's audit-period packages). */
export const EVIDENCE_PACKAGE_TYP = 'svc-evidence+jws';

/** The parts of an evidence package's content the verifier reads. */
interface EvidencePackageContent {
  readonly kind: string;
  readonly region: string;
  readonly transfers: Array<Record<string, unknown>>;
  readonly audit: { checkpoint: Record<string, unknown>; proofs: Array<Record<string, unknown>> } | null;
  readonly jwks: { keys: SigningJwk[] };
  /** `audit_period` packages: the proven entries indexed by what they record, and the period's checkpoints. */
  readonly receipts?: Array<Record<string, unknown>>;
  readonly withdrawals?: Array<Record<string, unknown>>;
  readonly other_entries?: Array<Record<string, unknown>>;
  readonly checkpoints?: Array<Record<string, unknown>>;
}

/** Outcome of an offline verification. */
export interface EvidenceVerification {
  readonly valid: boolean;
  readonly kind: string | null;
  readonly region: string | null;
  readonly transfers: number;
  readonly proofs_verified: number;
  readonly checkpoint_sequence: number | null;
  readonly witnessed: boolean;
  readonly witness_verified: boolean | null;
  readonly key_source: 'trusted_jwks' | 'embedded_jwks';
  /** `audit_period`: receipts and withdrawals indexed, and the period's checkpoints whose signature verified. */
  readonly receipts: number;
  readonly withdrawals: number;
  readonly checkpoints_verified: number;
  readonly failures: string[];
}

type Json = Record<string, unknown>;
const b64 = (value: unknown): Uint8Array => Buffer.from(String(value), 'base64');

/**
 * Verifies an evidence package offline (no network): its JWS signature with the region key named
 * by `kid` (from `trustedJwks` when given, else the keys the package embeds), then every audit
 * entry's chain hash, its inclusion proof against the package's checkpoint, the checkpoint's signed
 * note with the region key, the optional witness cosignature (`witnessKey`, a C2SP verifier key),
 * and that each listed transfer is the one its audit entry records. An `audit_period` package
 * (`POST /api/v1/evidence_packages`) also has every proven entry indexed once as a receipt, a
 * withdrawal or another entry with its recorded type, and every checkpoint of the period signed by
 * a region key. Any changed byte of the JWS fails the signature.
 */
export async function verifyEvidencePackage(
  jws: string,
  options: { trustedJwks?: { keys: SigningJwk[] }; witnessKey?: string; now?: Date } = {},
): Promise<EvidenceVerification> {
  const failures: string[] = [];
  const keySource = options.trustedJwks ? 'trusted_jwks' : 'embedded_jwks';
  const empty = {
    valid: false,
    kind: null,
    region: null,
    transfers: 0,
    proofs_verified: 0,
    checkpoint_sequence: null,
    witnessed: false,
    witness_verified: null,
    key_source: keySource,
    receipts: 0,
    withdrawals: 0,
    checkpoints_verified: 0,
  } as const;
  let content: EvidencePackageContent;
  try {
    let keys = options.trustedJwks?.keys;
    if (!keys) {
      const payloadPart = jws.split('.')[1] ?? '';
      keys = (JSON.parse(Buffer.from(payloadPart, 'base64url').toString('utf8')) as { jwks?: { keys?: SigningJwk[] } }).jwks?.keys ?? [];
    }
    const known = keys;
    const verified = await verifyCompactJws(
      jws.trim(),
      async (kid) => {
        const jwk = known.find((key) => key.kid === kid);
        return jwk ? importEd25519PublicJwk(jwk) : undefined;
      },
      { typ: EVIDENCE_PACKAGE_TYP, now: options.now },
    );
    content = verified.payload as unknown as EvidencePackageContent;
  } catch (error) {
    return { ...empty, failures: [`signature: ${error instanceof Error ? error.message : String(error)}`] };
  }
  const keys = options.trustedJwks?.keys ?? content.jwks.keys;
  let proofsVerified = 0;
  let witnessed = false;
  let witnessVerified: boolean | null = null;
  let sequence: number | null = null;
  const recorded = new Map<string, Json>();
  const provenTypes = new Map<string, string>();
  if (content.audit) {
    const checkpoint = content.audit.checkpoint;
    sequence = Number(checkpoint.sequence);
    const jwk = keys.find((key) => key.kid === checkpoint.kid);
    let root: Uint8Array | undefined;
    if (!jwk) failures.push(`checkpoint: key ${String(checkpoint.kid)} is not among the region keys`);
    else {
      try {
        const opened = openCheckpoint(String(checkpoint.signed_note), [
          ed25519NoteVerifier(String(checkpoint.origin), importEd25519PublicJwk(jwk)),
        ]);
        root = opened.checkpoint.rootHash;
        if (opened.checkpoint.size !== Number(checkpoint.tree_size) || Buffer.from(root).toString('base64') !== checkpoint.root_hash)
          failures.push('checkpoint: signed note differs from its fields');
      } catch (error) {
        failures.push(`checkpoint: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    const witness = checkpoint.witness as Json | undefined;
    witnessed = witness?.status === 'cosigned' && typeof witness.cosigned_note === 'string';
    if (options.witnessKey) {
      try {
        witnessVerified = witnessed ? (openNote(String(witness?.cosigned_note), [parseVerifierKey(options.witnessKey)]), true) : false;
      } catch {
        witnessVerified = false;
      }
      if (!witnessVerified) failures.push('witness: no valid cosignature by the given witness key');
    }
    for (const item of content.audit.proofs) {
      const entry = item.entry as Json;
      const id = String(entry.id);
      try {
        if (chainHash(String(entry.previous_hash), String(entry.canonical)) !== entry.hash)
          throw new Error('entry hash does not match its canonical text');
        const leaf = leafHash(Buffer.from(String(entry.hash), 'hex'));
        if (Buffer.from(leaf).toString('base64') !== item.leaf_hash) throw new Error('leaf hash differs');
        if (
          !root ||
          !verifyInclusion(Number(item.leaf_index), Number(checkpoint.tree_size), leaf, (item.proof as unknown[]).map(b64), root)
        )
          throw new Error('inclusion proof does not verify');
        recorded.set(id, (JSON.parse(String(entry.canonical)) as { data: Json }).data);
        provenTypes.set(id, String(entry.type));
        proofsVerified += 1;
      } catch (error) {
        failures.push(`entry ${id}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  }
  for (const transfer of content.transfers) {
    const fact = recorded.get(String(transfer.audit_entry_id));
    if (!fact) {
      failures.push(`transfer ${String(transfer.id)}: its audit entry is not proven in the package`);
      continue;
    }
    for (const field of ['to_country', 'from_country', 'lawful_basis', 'recipient', 'purpose', 'adequacy_verdict'] as const) {
      if (fact[field] !== transfer[field]) failures.push(`transfer ${String(transfer.id)}: ${field} differs from its audit entry`);
    }
    if (fact.transfer_id !== transfer.id) failures.push(`transfer ${String(transfer.id)}: audit entry records another transfer`);
  }
  let checkpointsVerified = 0;
  if (content.kind === 'audit_period') {
    // Every proven entry is indexed exactly once, and every indexed one is proven with that type.
    const indexed = [...(content.receipts ?? []), ...(content.withdrawals ?? []), ...(content.other_entries ?? [])];
    const seen = new Set<string>();
    for (const item of indexed) {
      const id = String(item.audit_entry_id);
      if (seen.has(id)) failures.push(`entry ${id}: indexed twice`);
      seen.add(id);
      if (!provenTypes.has(id)) failures.push(`entry ${id}: listed but not proven in the package`);
      else if (provenTypes.get(id) !== item.type)
        failures.push(`entry ${id}: listed as ${String(item.type)}, recorded as ${provenTypes.get(id)}`);
    }
    for (const id of provenTypes.keys()) if (!seen.has(id)) failures.push(`entry ${id}: proven but not indexed`);
    for (const checkpoint of content.checkpoints ?? []) {
      const jwk = keys.find((key) => key.kid === checkpoint.kid);
      try {
        if (!jwk) throw new Error(`key ${String(checkpoint.kid)} is not among the region keys`);
        openCheckpoint(String(checkpoint.signed_note), [ed25519NoteVerifier(String(checkpoint.origin), importEd25519PublicJwk(jwk))]);
        checkpointsVerified += 1;
      } catch (error) {
        failures.push(`checkpoint ${String(checkpoint.sequence)}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  }
  return {
    valid: failures.length === 0,
    kind: content.kind,
    region: content.region,
    transfers: content.transfers.length,
    proofs_verified: proofsVerified,
    checkpoint_sequence: sequence,
    witnessed,
    witness_verified: witnessVerified,
    key_source: keySource,
    receipts: content.receipts?.length ?? 0,
    withdrawals: content.withdrawals?.length ?? 0,
    checkpoints_verified: checkpointsVerified,
    failures,
  };
}
