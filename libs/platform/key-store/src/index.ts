export { CreateSigningKeys1795377354475, KEYS_SCHEMA, keysMigrations } from './keys.migrations';
export {
  SigningKeyStore,
  type SerialisedJwks,
  type SigningKeyInfo,
  type SigningKeyStatus,
  type SigningKeyStoreOptions,
} from './signing-key-store';
// The key types signing code names, re-exported for holders of the store.
export type { ActiveSigningKey, SigningJwk } from '@svc/crypto';
export { JOSE_KEY_ALGORITHMS, JoseKeyStore, type JoseKeyAlgorithm, type PrivateSigningJwk, type PublicSigningJwk } from './jose-key-store';
