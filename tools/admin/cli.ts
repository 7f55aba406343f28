/**
 * Admin CLI for bootstrapping a region, usable by scripts: every command prints one JSON object
 * on stdout; messages and errors go to stderr. Exit 0 success, 1 the command failed, 2 usage
 * (unknown command or flag, missing or malformed flag). `--help` prints the usage on stdout.
 *
 *   npm run -s admin -- create-application --region us --name demo --environment development [--mode conductor]
 *   npm run -s admin -- rotate-keys --region us
 *   npm run -s admin -- create-oauth-client --region us --application tp_us_… --name "My app" --redirect-uris https://app.example.com/callback
 *
 * The command modules (and with them NestJS, TypeORM and the feature libraries) load only after
 * the arguments are understood, so `--help` and usage errors answer at once.
 */

const USAGE = `usage:
  admin create-application --region <us|eu|ap> --name <name> --environment <development|production> [--mode <conductor|oversight|hybrid>]
  admin rotate-keys --region <us|eu|ap>
  admin create-oauth-client --region <us|eu|ap> --application <application id> --name <name> --redirect-uris <uri[,uri…]>
        [--auth <client_secret_basic|private_key_jwt|none>] [--grant-types <type[,type…]>] [--scopes <scope[,scope…]>]
        [--post-logout-redirect-uris <uri[,uri…]>] [--id-token-alg <RS256|ES256|EdDSA>]
  admin create-delegation-grant --region <us|eu|ap> --type <guardian|power_of_attorney> --application <application id>
        --principal <usr_…> --delegate <usr_…> --surfaces <surface[,surface…]> --actions <read[,write]>
        --expires-at <RFC 3339> --evidence <reviewed evidence reference> --reviewer <operator reference>
  admin --help

Prints one JSON object on stdout. Exit 0 success, 1 failure, 2 usage.`;

/** Flags each command accepts. */
const COMMAND_FLAGS: Readonly<Record<string, readonly string[]>> = {
  'create-application': ['region', 'name', 'environment', 'mode'],
  'rotate-keys': ['region'],
  'create-oauth-client': [
    'region',
    'application',
    'name',
    'redirect-uris',
    'auth',
    'grant-types',
    'scopes',
    'post-logout-redirect-uris',
    'id-token-alg',
  ],
  'create-delegation-grant': [
    'region',
    'type',
    'application',
    'principal',
    'delegate',
    'surfaces',
    'actions',
    'expires-at',
    'evidence',
    'reviewer',
  ],
};

const HELP_ARGUMENTS = new Set(['--help', '-h', 'help']);

class InvocationError extends Error {}

function parseFlags(command: string, args: readonly string[]): Record<string, string> {
  const allowed = COMMAND_FLAGS[command] ?? [];
  const flags: Record<string, string> = {};
  for (let i = 0; i < args.length; i += 2) {
    const name = args[i];
    const value = args[i + 1];
    if (!name?.startsWith('--')) throw new InvocationError(`unexpected argument "${name ?? ''}"`);
    if (!allowed.includes(name.slice(2))) throw new InvocationError(`unknown flag ${name} for ${command}`);
    if (value === undefined || value.startsWith('--')) throw new InvocationError(`${name} needs a value`);
    flags[name.slice(2)] = value;
  }
  return flags;
}

async function main(argv: readonly string[]): Promise<number> {
  if (argv.some((arg) => HELP_ARGUMENTS.has(arg))) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const [command, ...rest] = argv;
  if (command === undefined) throw new InvocationError('missing command');
  if (!(command in COMMAND_FLAGS)) throw new InvocationError(`unknown command "${command}"`);
  const flags = parseFlags(command, rest);
  const commands = await import('./commands');
  try {
    const result =
      command === 'create-application'
        ? await commands.createApplication(flags)
        : command === 'create-oauth-client'
          ? await commands.createOAuthClient(flags)
          : command === 'create-delegation-grant'
            ? await commands.createDelegationGrant(flags)
            : await commands.rotateRegionKeys(flags);
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return 0;
  } catch (error) {
    if (error instanceof commands.UsageError) throw new InvocationError(error.message);
    process.stderr.write(`admin: ${commands.describeFailure(error)}\n`);
    return 1;
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof InvocationError) {
      process.stderr.write(`admin: ${error.message}\n${USAGE}\n`);
      process.exit(2);
    }
    process.stderr.write(`admin: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
