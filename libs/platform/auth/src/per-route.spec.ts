import type { ExecutionContext } from '@nestjs/common';
import { PerRoute } from './per-route';

const contextOf = (handler: unknown, controller: unknown): ExecutionContext =>
  ({ getHandler: () => handler, getClass: () => controller }) as unknown as ExecutionContext;

describe('PerRoute', () => {
  class Orders {
    list(): void {}
    create(): void {}
  }
  class Archive extends Orders {}

  it('reads a route once, and each route (handler and controller) apart', () => {
    const reads: string[] = [];
    const perRoute = new PerRoute(([handler, controller]) => {
      reads.push(`${controller.name}.${handler.name}`);
      return reads.length;
    });
    const list = contextOf(Orders.prototype.list, Orders);
    expect([perRoute.of(list), perRoute.of(list)]).toEqual([1, 1]);
    expect(perRoute.of(contextOf(Orders.prototype.create, Orders))).toBe(2);
    // An inherited handler on another controller is another route (its class may carry other metadata).
    expect(perRoute.of(contextOf(Archive.prototype.list, Archive))).toBe(3);
    expect(reads).toEqual(['Orders.list', 'Orders.create', 'Archive.list']);
  });

  it('remembers a route whose value is undefined without reading it again', () => {
    let reads = 0;
    const perRoute = new PerRoute(() => {
      reads += 1;
      return undefined;
    });
    const context = contextOf(Orders.prototype.list, Orders);
    perRoute.of(context);
    perRoute.of(context);
    expect(reads).toBe(1);
  });
});
