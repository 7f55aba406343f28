import 'reflect-metadata';
import { plainToInstance, type ClassConstructor } from 'class-transformer';
import { validateSync, type ValidationError } from 'class-validator';

/** Environment variables as a process is given them. */
export type Environment = Readonly<Record<string, string | undefined>>;

/** Thrown at boot when the environment does not satisfy a config class; names every bad variable. */
export class ConfigError extends Error {
  constructor(
    readonly variables: readonly string[],
    detail: string,
  ) {
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

function instantiate<T extends object>(configClass: ClassConstructor<T>, env: Environment): { instance: T; errors: ValidationError[] } {
  const plain: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(env)) {
    if (value !== undefined && value !== '') plain[key] = value;
  }
  const instance = plainToInstance(configClass, plain, { exposeDefaultValues: true });
  return { instance, errors: validateSync(instance, { whitelist: false, forbidUnknownValues: true }) };
}

/**
 * Builds a typed config object from environment variables. Property names of the class are the
 * variable names; class-transformer decorators convert types; class-validator decorators decide
 * validity. Unset variables keep the class's default initialisers.
 */
export function loadConfig<T extends object>(configClass: ClassConstructor<T>, env: Environment): T {
  return loadConfigs([configClass], env).get(configClass);
}

/** The instances of several config classes, each under its class. */
export class LoadedConfigs {
  constructor(private readonly instances: ReadonlyMap<ClassConstructor<object>, object>) {}

  get<T extends object>(configClass: ClassConstructor<T>): T {
    const instance = this.instances.get(configClass);
    if (!instance) throw new Error(`${configClass.name} was not loaded`);
    return instance as T;
  }

  entries(): [ClassConstructor<object>, object][] {
    return [...this.instances.entries()];
  }
}

/**
 * One validation pass over several config classes (a process's and those of each of its features)
 * from the same environment: throws one `ConfigError` naming every bad variable of every class,
 * each once, rather than stopping at the first class that fails.
 */
export function loadConfigs(configClasses: readonly ClassConstructor<object>[], env: Environment): LoadedConfigs {
  const instances = new Map<ClassConstructor<object>, object>();
  const names: string[] = [];
  const lines: string[] = [];
  for (const configClass of new Set(configClasses)) {
    const { instance, errors } = instantiate(configClass, env);
    instances.set(configClass, instance);
    const described = describe(errors);
    described.names.forEach((name, index) => {
      if (names.includes(name)) return;
      names.push(name);
      lines.push(described.lines[index] ?? name);
    });
  }
  if (names.length > 0) throw new ConfigError(names, lines.join(', '));
  return new LoadedConfigs(instances);
}
