/**
 * A credential that cannot be read as any accepted format (compact JWT, SD-JWT, JWT-secured VC):
 * the verifier answers it as `agent_credential_malformed` with this message and detail.
 */
export class CredentialFormatError extends Error {
  constructor(
    message: string,
    readonly detail: Record<string, unknown> = {},
  ) {
    super(message);
  }
}
