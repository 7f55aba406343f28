import type { ExecutionContext } from '@nestjs/common';

/** A route's handler and controller class, the targets of its decorators' metadata. */
export type RouteTargets = [handler: (...args: never[]) => unknown, controller: abstract new (...args: never[]) => unknown];

/**
 * A value computed from a route's decorator metadata once, then remembered: the metadata is fixed
 * when the controller class is defined, and reading it (two metadata lookups per key, through the
 * prototype chain) on every request was a measurable share of a busy route's time.
 */
export class PerRoute<T> {
  private readonly byHandler = new WeakMap<object, Map<object, T>>();

  constructor(private readonly compute: (targets: RouteTargets) => T) {}

  of(context: ExecutionContext): T {
    const handler = context.getHandler();
    const controller = context.getClass();
    let byController = this.byHandler.get(handler);
    if (byController === undefined) {
      byController = new Map();
      this.byHandler.set(handler, byController);
    }
    if (byController.has(controller)) return byController.get(controller) as T;
    const value = this.compute([handler as RouteTargets[0], controller as RouteTargets[1]]);
    byController.set(controller, value);
    return value;
  }
}
