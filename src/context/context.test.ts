import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { HarnessError } from '../errors.js';
import { bindContext, createContext, type Context, type Plugin } from './context.js';

declare module './context.js' {
  interface Events {
    'test/ping'(n: number): void;
    'test/decide'(n: number): Promise<string | undefined> | string | undefined;
    'test/pipe'(value: string, suffix: string): string | undefined | Promise<string | undefined>;
  }
  interface Services {
    counter: { count: number };
    scoped: { owner: string };
  }
}

describe('plugins and effects', () => {
  it('runs disposers in reverse order when the plugin is disposed', async () => {
    const root = createContext();
    const order: string[] = [];
    const handle = root.plugin({
      name: 'p',
      apply(ctx) {
        ctx.effect(() => () => void order.push('first'));
        ctx.effect(() => () => void order.push('second'));
        ctx.effect(() => () => void order.push('third'));
      },
    });
    expect(handle.state).toBe('active');
    await handle.dispose();
    expect(order).toEqual(['third', 'second', 'first']);
    expect(handle.state).toBe('disposed');
    await handle.dispose();
    expect(order).toHaveLength(3);
  });

  it('disposes nested plugins with their parent', async () => {
    const root = createContext();
    const order: string[] = [];
    const outer = root.plugin({
      name: 'outer',
      apply(ctx) {
        ctx.effect(() => () => void order.push('outer'));
        ctx.plugin({ name: 'inner', apply: (c) => void c.effect(() => () => void order.push('inner')) });
      },
    });
    await outer.dispose();
    expect(order).toEqual(['inner', 'outer']);
  });

  it('an early disposer call runs once and is not repeated at dispose', async () => {
    const root = createContext();
    let runs = 0;
    let early: (() => void | Promise<void>) | undefined;
    const handle = root.plugin({ name: 'p', apply: (ctx) => void (early = ctx.effect(() => () => void runs++)) });
    await early!();
    await handle.dispose();
    expect(runs).toBe(1);
  });

  it('a plugin whose apply throws is failed and its effects are undone', async () => {
    const root = createContext();
    const reported: string[] = [];
    root.setListenerErrorHandler((e, where) => reported.push(`${where}: ${(e as Error).message}`));
    let undone = false;
    const handle = root.plugin({
      name: 'broken',
      apply(ctx) {
        ctx.effect(() => () => void (undone = true));
        throw new Error('boom');
      },
    });
    expect(handle.state).toBe('failed');
    expect((handle.error as Error).message).toBe('boom');
    await Promise.resolve();
    expect(undone).toBe(true);
    expect(reported).toEqual(['plugin broken: boom']);
  });

  it('a plugin whose apply throws after registering tools leaves nothing registered once its dispose resolves', async () => {
    const root = createContext();
    root.setListenerErrorHandler(() => {});
    const names = new Set<string>();
    // Registrations as the tool registry makes them: one effect per name, undone by its disposer.
    const register = (ctx: Context, name: string) => {
      if (names.has(name)) throw new Error(`"${name}" is already registered`);
      ctx.effect(() => {
        names.add(name);
        return () => void names.delete(name);
      });
    };
    const tools = ['a', 'b', 'c'];
    const broken = root.plugin({
      name: 'broken',
      apply(ctx) {
        for (const name of tools) register(ctx, name);
        throw new Error('boom');
      },
    });
    expect(broken.state).toBe('failed');
    await broken.dispose();
    expect([...names]).toEqual([]);
    const next = root.plugin({ name: 'next', apply: (ctx) => tools.forEach((name) => register(ctx, name)) });
    expect(next.state).toBe('active');
    expect(next.error).toBeUndefined();
  });

  it('an async apply that rejects after registering: settled() resolves once its effects are undone', async () => {
    const root = createContext();
    root.setListenerErrorHandler(() => {});
    const names = new Set<string>();
    const slowUndo = () => new Promise<void>((resolve) => setImmediate(resolve));
    const handle = root.plugin({
      name: 'broken-async',
      async apply(ctx) {
        ctx.effect(() => {
          names.add('x');
          return async () => {
            await slowUndo();
            names.delete('x');
          };
        });
        await Promise.resolve();
        throw new Error('late boom');
      },
    });
    expect(await handle.settled()).toBe('failed');
    expect((handle.error as Error).message).toBe('late boom');
    expect([...names]).toEqual([]);
  });

  it('settled() resolves at once for a pending plugin and after apply for an active one', async () => {
    const root = createContext();
    const pending = root.plugin({ name: 'waits', inject: ['counter'], apply() {} });
    expect(await pending.settled()).toBe('pending');
    let done = false;
    const active = root.plugin({
      name: 'slow',
      async apply() {
        await new Promise<void>((resolve) => setImmediate(resolve));
        done = true;
      },
    });
    expect(await active.settled()).toBe('active');
    expect(done).toBe(true);
  });
});

describe('config validation', () => {
  const plugin: Plugin<{ limit: number; mode: 'a' | 'b' }> = {
    name: 'limited',
    config: z.object({ limit: z.number().int().positive(), mode: z.enum(['a', 'b']) }),
    apply(ctx, config) {
      ctx.provide('counter', { count: config.limit });
    },
  };

  it('validates config with the plugin schema before apply', () => {
    const root = createContext();
    root.plugin(plugin, { limit: 3, mode: 'a' });
    expect(root.counter.count).toBe(3);
  });

  it('rejects invalid config with CONFIG naming the plugin and the path; nothing is applied', () => {
    const root = createContext();
    let error: unknown;
    try {
      root.plugin(plugin, { limit: -1, mode: 'c' } as never);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(HarnessError);
    expect((error as HarnessError).code).toBe('CONFIG');
    expect((error as Error).message).toContain('"limited"');
    expect((error as Error).message).toContain('limit:');
    expect((error as Error).message).toContain('mode:');
    expect(root.get('counter')).toBeUndefined();
  });
});

describe('services and inject', () => {
  const consumer = (log: string[]): Plugin => ({
    name: 'consumer',
    inject: ['counter'],
    apply(ctx) {
      log.push(`apply ${ctx.counter.count}`);
      ctx.effect(() => () => void log.push('undo'));
    },
  });

  it('stays pending with the missing names until the service exists', async () => {
    const root = createContext();
    const log: string[] = [];
    const handle = root.plugin(consumer(log));
    expect(handle.state).toBe('pending');
    expect(handle.missing()).toEqual(['counter']);
    expect(log).toEqual([]);
    const provider = root.plugin({ name: 'provider', apply: (ctx) => ctx.provide('counter', { count: 7 }) });
    expect(handle.state).toBe('active');
    expect(handle.missing()).toEqual([]);
    expect(log).toEqual(['apply 7']);

    await provider.dispose();
    expect(root.get('counter')).toBeUndefined();
    expect(handle.state).toBe('pending');
    expect(handle.missing()).toEqual(['counter']);
    expect(log).toEqual(['apply 7', 'undo']);

    root.plugin({ name: 'provider2', apply: (ctx) => ctx.provide('counter', { count: 8 }) });
    expect(log).toEqual(['apply 7', 'undo', 'apply 8']);
  });

  it('refuses a second provider of the same service and reserved names', () => {
    const root = createContext();
    root.provide('counter', { count: 1 });
    expect(() => root.provide('counter', { count: 2 })).toThrow(/already provided/);
    expect(() => root.provide('emit', 1)).toThrow(HarnessError);
    expect(() => root.provide('__proto__', 1)).toThrow(HarnessError);
  });

  it('hands each context its own view of a context-bound service', async () => {
    const root = createContext();
    root.provide('scoped', {
      [bindContext]: (ctx: Context) => ({ owner: ctx.name }),
      owner: 'raw',
    } as { owner: string });
    let seen = '';
    const handle = root.plugin({ name: 'viewer', inject: ['scoped'], apply: (ctx) => void (seen = ctx.scoped.owner) });
    expect(seen).toBe('viewer');
    expect(root.scoped.owner).toBe('root');
    await handle.dispose();
  });
});

describe('events', () => {
  it('emit notifies every listener and reports a failing one without throwing', () => {
    const root = createContext();
    const errors: string[] = [];
    root.setListenerErrorHandler((e, name) => errors.push(`${name}:${(e as Error).message}`));
    const seen: number[] = [];
    root.on('test/ping', (n) => void seen.push(n));
    root.on('test/ping', () => {
      throw new Error('bad listener');
    });
    root.on('test/ping', (n) => void seen.push(n * 10));
    root.emit('test/ping', 2);
    expect(seen).toEqual([2, 20]);
    expect(errors).toEqual(['test/ping:bad listener']);
  });

  it('serial awaits listeners in order and the first defined result wins', async () => {
    const root = createContext();
    const called: string[] = [];
    root.on('test/decide', async () => void called.push('a'));
    root.on('test/decide', async (n) => {
      called.push('b');
      return `b${n}`;
    });
    root.on('test/decide', () => {
      called.push('c');
      return 'c';
    });
    expect(await root.serial('test/decide', 1)).toBe('b1');
    expect(called).toEqual(['a', 'b']);
  });

  it('serial resolves undefined without listeners', async () => {
    expect(await createContext().serial('test/decide', 1)).toBeUndefined();
  });

  it('waterfall threads the value through each listener; undefined keeps it', async () => {
    const root = createContext();
    root.on('test/pipe', (v, s) => v + s);
    root.on('test/pipe', () => undefined);
    root.on('test/pipe', async (v) => v.toUpperCase());
    expect(await root.waterfall('test/pipe', 'x', '-y')).toBe('X-Y');
  });

  it('listeners registered by a plugin go away with it', async () => {
    const root = createContext();
    const seen: number[] = [];
    const handle = root.plugin({ name: 'l', apply: (ctx) => void ctx.on('test/ping', (n) => void seen.push(n)) });
    root.emit('test/ping', 1);
    await handle.dispose();
    root.emit('test/ping', 2);
    expect(seen).toEqual([1]);
  });

  it('a disposed context refuses new effects with CONFIG', async () => {
    const root = createContext();
    let captured: Context | undefined;
    const handle = root.plugin({ name: 'gone', apply: (ctx) => void (captured = ctx) });
    await handle.dispose();
    expect(() => captured!.on('test/ping', () => {})).toThrow(expect.objectContaining({ code: 'CONFIG' }));
  });
});
