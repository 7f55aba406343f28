import 'reflect-metadata';
import { plainToInstance, type ClassConstructor } from 'class-transformer';
import { validateSync, type ValidationError } from 'class-validator';

/** Thrown at boot when the environment does not satisfy a config class; names every bad variable. */
export class ConfigError extends Error {
  constructor(readonly variables: readonly string[], detail: string) {
    super(`Invalid configuration: ${detail}`);
    this.name = 'ConfigError';
  }
}

function describe(errors: ValidationError[]): { names: string[]; lines: string[] } {
  const names: string[] = [];
  const lines: string[] = [];
  for (const error of errors) {
    names.push(error.property);
    const reasons = Object.values(error.constraints ?? {}).join('; ');
    lines.push(`${error.property}: ${reasons || 'invalid'}`);
  }
  return { names, lines };
}

/**
 * Builds a typed config object from environment variables. Property names of the class are the
 * variable names; class-transformer decorators convert types; class-validator decorators decide
 * validity. Unset variables keep the class's default initialisers.
 */
export function loadConfig<T extends object>(
  configClass: ClassConstructor<T>,
  env: NodeJS.ProcessEnv = process.env,
): T {
  const plain: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(env)) {
    if (value !== undefined && value !== '') plain[key] = value;
  }
  const instance = plainToInstance(configClass, plain, { exposeDefaultValues: true });
  const errors = validateSync(instance, { whitelist: false, forbidUnknownValues: true });
  if (errors.length > 0) {
    const { names, lines } = describe(errors);
    throw new ConfigError(names, lines.join(', '));
  }
  return instance;
}
