#!/usr/bin/env node
// The agent side of the quick start: an Ed25519 key for DPoP (RFC 9449) and its proofs.
//   node scripts/quickstart-agent.js keygen <key.json>            prints the key's thumbprint (agent_dpop_jkt)
//   node scripts/quickstart-agent.js proof <key.json> <METHOD> <URL> [agent token]   prints a DPoP proof
const { readFileSync, writeFileSync } = require('node:fs');
const { generateKeyPairSync, createPrivateKey, createPublicKey, createHash, randomUUID, sign } = require('node:crypto');

const b64url = (buffer) => Buffer.from(buffer).toString('base64url');

function thumbprint(jwk) {
  return b64url(
    createHash('sha256')
      .update(JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x }))
      .digest(),
  );
}

const [command, file, method, url, token] = process.argv.slice(2);
if (command === 'keygen' && file) {
  const { privateKey } = generateKeyPairSync('ed25519');
  const jwk = privateKey.export({ format: 'jwk' });
  writeFileSync(file, JSON.stringify(jwk), { mode: 0o600 });
  process.stdout.write(`${thumbprint(jwk)}\n`);
} else if (command === 'proof' && file && method && url) {
  const jwk = JSON.parse(readFileSync(file, 'utf8'));
  const publicJwk = createPublicKey(createPrivateKey({ key: jwk, format: 'jwk' })).export({ format: 'jwk' });
  const header = { typ: 'dpop+jwt', alg: 'EdDSA', jwk: { kty: publicJwk.kty, crv: publicJwk.crv, x: publicJwk.x } };
  const claims = {
    htm: method,
    htu: url,
    iat: Math.floor(Date.now() / 1000),
    jti: randomUUID(),
    ...(token ? { ath: b64url(createHash('sha256').update(token).digest()) } : {}),
  };
  const input = `${b64url(JSON.stringify(header))}.${b64url(JSON.stringify(claims))}`;
  const signature = sign(null, Buffer.from(input), createPrivateKey({ key: jwk, format: 'jwk' }));
  process.stdout.write(`${input}.${b64url(signature)}\n`);
} else {
  process.stderr.write('usage: quickstart-agent.js keygen <key.json> | proof <key.json> <METHOD> <URL> [agent token]\n');
  process.exit(2);
}
