// A small plugin container with Cordis-style names: plugins, inject, scoped effects, services and
// events (emit / serial / waterfall). Infrastructure, not a product: keep it small.

import type { ZodType } from 'zod';
import { ConfigError } from '../errors.js';

/**
 * Event name -> listener signature. Modules add their events by declaration merging:
 * `declare module '../context/context.js' { interface Events { 'x/y'(a: A): B } }`.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-interface
export interface Events {}

/** Service name -> service type, extended by declaration merging like `Events`. */
// eslint-disable-next-line @typescript-eslint/no-empty-interface
export interface Services {}

export type EventName = keyof Events & string;
export type ServiceName = keyof Services & string;
type Listener<K extends EventName> = Events[K] extends (...args: infer A) => infer R ? (...args: A) => R : never;
type EventArgs<K extends EventName> = Parameters<Listener<K>>;
type EventResult<K extends EventName> = Awaited<ReturnType<Listener<K>>>;

/** A plugin loaded somewhere in a container, as `ctx.inspect()` lists it. */
export interface LoadedPlugin {
  readonly handle: PluginHandle;
  /** The context whose `plugin()` loaded it. */
  readonly loadedBy: Context;
  /** The plugin's own context while it is active. */
  readonly context?: Context;
}

/** Every live plugin (in load order) and every provided service of a container. */
export interface ContainerSnapshot {
  readonly plugins: readonly LoadedPlugin[];
  /** `provider` is the name of the plugin whose context provided it (`root` for the container's own); `context` that context. */
  readonly services: readonly { readonly name: string; readonly provider: string; readonly context: Context }[];
}

/** Undoes an effect. May be async; disposers run in reverse order of registration. */
export type Disposer = () => void | Promise<void>;

export interface Plugin<Config = undefined> {
  readonly name: string;
  /** Services that must exist before `apply` runs; the plugin stays pending until then. */
  readonly inject?: readonly string[];
  /** Validates the config before `apply`; an invalid config is a CONFIG error and nothing is applied. */
  readonly config?: ZodType<Config>;
  apply(ctx: Context, config: Config): void | Promise<void>;
}

export type PluginState = 'pending' | 'active' | 'failed' | 'disposed';

export interface PluginHandle {
  readonly name: string;
  readonly state: PluginState;
  /** Injected services that do not exist yet (empty unless pending). */
  missing(): string[];
  /** The error `apply` threw, when the state is `failed`. */
  readonly error: unknown;
  /** Runs every effect of the plugin (and of the plugins it loaded) in reverse order. Idempotent. */
  dispose(): Promise<void>;
  /**
   * Resolves with the state once the current activation settled: an async `apply` finished, or a
   * failed one's effects are all undone. At once for a pending or disposed plugin.
   */
  settled(): Promise<PluginState>;
}

/**
 * A service object may implement this to hand each context its own view (so that, for example,
 * `ctx.tools.register(...)` becomes an effect of the plugin that called it).
 */
export const bindContext: unique symbol = Symbol('ptc-harness.bindContext');

export interface ContextBound<View> {
  [bindContext](ctx: Context): View;
}

type AnyListener = (...args: never[]) => unknown;

interface ListenerEntry {
  readonly fn: AnyListener;
  readonly owner: Context;
}

/** State shared by every context of one container. */
class Registry {
  readonly services = new Map<string, { value: unknown; owner: Context }>();
  readonly listeners = new Map<string, ListenerEntry[]>();
  readonly forks = new Set<Fork>();
  readonly views = new WeakMap<Context, Map<string, unknown>>();
  onListenerError: (error: unknown, event: string) => void = (error, event) => {
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`ptc-harness: listener of "${event}" failed: ${message}\n`);
  };
}

const RESERVED_MEMBERS = new Set<string>([
  'root', 'parent', 'plugin', 'effect', 'provide', 'get', 'on', 'emit', 'serial', 'waterfall',
  'listeners', 'dispose', 'name', 'constructor', 'setListenerErrorHandler', 'inspect', '__proto__',
]);

const definedGetters = new Set<string>();

/**
 * A plugin's view of the container. The root context comes from `createContext()`; every plugin
 * gets a child context whose effects are disposed with the plugin.
 */
export class Context {
  /** @internal */
  readonly registry: Registry;
  readonly parent: Context | undefined;
  /** The plugin that owns this context, or 'root'. */
  readonly name: string;
  private readonly disposers: Disposer[] = [];
  private disposed = false;

  /** @internal use createContext() or ctx.plugin() */
  constructor(registry: Registry, parent: Context | undefined, name: string) {
    this.registry = registry;
    this.parent = parent;
    this.name = name;
  }

  /** Loads a plugin under this context. The plugin is disposed with this context. */
  plugin<C>(plugin: Plugin<C>, ...config: undefined extends C ? [config?: C] : [config: C]): PluginHandle {
    this.assertLive();
    const parsed = validateConfig(plugin, config[0]);
    const fork = new Fork(this, plugin as Plugin<unknown>, parsed);
    this.addDisposer(() => fork.dispose());
    fork.tryActivate();
    return fork.handle;
  }

  /**
   * Runs `setup` now and keeps the disposer it returns; the disposer runs when this context is
   * disposed (plugin disposed, or an injected service withdrawn). Returns a function that runs it early.
   */
  effect(setup: () => Disposer | void): Disposer {
    this.assertLive();
    const disposer = setup();
    if (!disposer) return () => {};
    return this.addDisposer(disposer);
  }

  /** Provides a service under `name` for as long as this context lives. */
  provide<K extends ServiceName>(name: K, value: Services[K]): void;
  provide(name: string, value: unknown): void;
  provide(name: string, value: unknown): void {
    this.assertLive();
    if (RESERVED_MEMBERS.has(name) || !/^[A-Za-z_$][\w$]*$/.test(name)) {
      throw new ConfigError(`Cannot provide a service named "${name}": choose an identifier that is not a Context member.`);
    }
    const existing = this.registry.services.get(name);
    if (existing) {
      throw new ConfigError(`Service "${name}" is already provided by plugin "${existing.owner.name}"; dispose it first.`);
    }
    defineServiceGetter(name);
    this.registry.services.set(name, { value, owner: this });
    this.addDisposer(async () => {
      if (this.registry.services.get(name)?.owner !== this) return;
      this.registry.services.delete(name);
      await Promise.all([...this.registry.forks].filter((f) => f.injects(name)).map((f) => f.deactivate()));
    });
    for (const fork of [...this.registry.forks]) fork.tryActivate();
  }

  /** The service bound to this context, or undefined when nobody provides it. */
  get<K extends ServiceName>(name: K): Services[K] | undefined;
  get(name: string): unknown;
  get(name: string): unknown {
    const entry = this.registry.services.get(name);
    if (!entry) return undefined;
    const value = entry.value;
    if (!isContextBound(value)) return value;
    let views = this.registry.views.get(this);
    if (!views) this.registry.views.set(this, (views = new Map()));
    if (!views.has(name)) views.set(name, value[bindContext](this));
    return views.get(name);
  }

  /** Adds a listener for the lifetime of this context. Returns a function that removes it early. */
  on<K extends EventName>(name: K, listener: Listener<K>): Disposer {
    this.assertLive();
    const list = this.registry.listeners.get(name) ?? [];
    this.registry.listeners.set(name, list);
    const entry: ListenerEntry = { fn: listener as AnyListener, owner: this };
    list.push(entry);
    return this.addDisposer(() => {
      const at = list.indexOf(entry);
      if (at >= 0) list.splice(at, 1);
    });
  }

  /** The current listeners of an event, in registration order (for middleware-style events). */
  listeners<K extends EventName>(name: K): Listener<K>[] {
    return (this.registry.listeners.get(name) ?? []).map((e) => e.fn as Listener<K>);
  }

  /** Notifies every listener synchronously. A failing listener is reported, never thrown to the emitter. */
  emit<K extends EventName>(name: K, ...args: EventArgs<K>): void {
    for (const fn of this.listeners(name)) {
      try {
        const out = (fn as (...a: EventArgs<K>) => unknown)(...args);
        if (out instanceof Promise) out.catch((error: unknown) => this.registry.onListenerError(error, name));
      } catch (error) {
        this.registry.onListenerError(error, name);
      }
    }
  }

  /** Calls listeners in order, awaiting each; the first result that is not undefined wins. */
  async serial<K extends EventName>(name: K, ...args: EventArgs<K>): Promise<EventResult<K> | undefined> {
    for (const fn of this.listeners(name)) {
      const out = await (fn as (...a: EventArgs<K>) => unknown)(...args);
      if (out !== undefined) return out as EventResult<K>;
    }
    return undefined;
  }

  /**
   * Passes a value through every listener in order: each receives the current value (plus the
   * extra arguments) and returns the next one. Returning undefined keeps the value unchanged.
   */
  async waterfall<K extends EventName>(name: K, ...args: EventArgs<K>): Promise<EventArgs<K>[0]> {
    let [value, ...rest] = args;
    for (const fn of this.listeners(name)) {
      const out = await (fn as (...a: unknown[]) => unknown)(value, ...rest);
      if (out !== undefined) value = out as EventArgs<K>[0];
    }
    return value;
  }

  /** What the whole container holds now, for inspection (the creator preset's harness_inspect). Read-only. */
  inspect(): ContainerSnapshot {
    return {
      plugins: [...this.registry.forks].map((fork) => fork.describe()),
      services: [...this.registry.services].map(([name, entry]) => ({ name, provider: entry.owner.name, context: entry.owner })),
    };
  }

  /** Where failures of `emit` listeners and plugin `apply` go (default: one line on stderr). Root-wide; returns the previous handler. */
  setListenerErrorHandler(handler: (error: unknown, event: string) => void): (error: unknown, event: string) => void {
    const previous = this.registry.onListenerError;
    this.registry.onListenerError = handler;
    return previous;
  }

  /**
   * Runs every disposer of this context in reverse order. Idempotent. Synchronous disposers run
   * synchronously up to the first one that returns a promise, so a failed apply's synchronous
   * effects (tool registrations) are gone before `ctx.plugin()` returns.
   */
  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    const errors: unknown[] = [];
    while (this.disposers.length > 0) {
      const disposer = this.disposers.pop()!;
      try {
        const out = disposer();
        if (out instanceof Promise) await out;
      } catch (error) {
        errors.push(error);
      }
    }
    if (errors.length === 1) throw errors[0];
    if (errors.length > 1) throw new AggregateError(errors, `${errors.length} disposers of "${this.name}" failed`);
  }

  private addDisposer(disposer: Disposer): Disposer {
    let done = false;
    const once: Disposer = () => {
      if (done) return;
      done = true;
      const at = this.disposers.indexOf(once);
      if (at >= 0) this.disposers.splice(at, 1);
      return disposer();
    };
    this.disposers.push(once);
    return once;
  }

  private assertLive(): void {
    if (this.disposed) {
      throw new ConfigError(`The context of plugin "${this.name}" is disposed; it can no longer register anything.`);
    }
  }
}

/** One loaded plugin: its config, its state and the context of its current activation. */
class Fork {
  readonly handle: PluginHandle;
  private state: PluginState = 'pending';
  private error: unknown = undefined;
  private ctx: Context | undefined;
  /** The current activation's async apply (and a failure's cleanup); awaited by settled(). */
  private settling: Promise<void> = Promise.resolve();
  /** A failed activation's undoing of its effects; awaited by dispose(). */
  private cleanup: Promise<void> = Promise.resolve();

  private readonly parent: Context;
  private readonly plugin: Plugin<unknown>;
  private readonly config: unknown;

  constructor(parent: Context, plugin: Plugin<unknown>, config: unknown) {
    this.parent = parent;
    this.plugin = plugin;
    this.config = config;
    parent.registry.forks.add(this);
    const fork = this;
    this.handle = {
      name: plugin.name,
      get state() {
        return fork.state;
      },
      get error() {
        return fork.error;
      },
      missing: () => this.missing(),
      dispose: () => this.dispose(),
      settled: async () => {
        await fork.settling;
        return fork.state;
      },
    };
  }

  describe(): LoadedPlugin {
    return { handle: this.handle, loadedBy: this.parent, ...(this.ctx ? { context: this.ctx } : {}) };
  }

  injects(service: string): boolean {
    return this.state === 'active' && (this.plugin.inject ?? []).includes(service);
  }

  missing(): string[] {
    if (this.state !== 'pending') return [];
    return (this.plugin.inject ?? []).filter((name) => !this.parent.registry.services.has(name));
  }

  tryActivate(): void {
    if (this.state !== 'pending' || this.missing().length > 0) return;
    const ctx = new Context(this.parent.registry, this.parent, this.plugin.name);
    this.ctx = ctx;
    this.state = 'active';
    const fail = (error: unknown): Promise<void> => {
      if (this.ctx !== ctx) return Promise.resolve();
      this.state = 'failed';
      this.error = error;
      this.ctx = undefined;
      // Kept so that dispose() and settled() resolve only once every effect is undone.
      this.cleanup = ctx.dispose().catch(() => {});
      this.parent.registry.onListenerError(error, `plugin ${this.plugin.name}`);
      return this.cleanup;
    };
    try {
      const out = this.plugin.apply(ctx, this.config);
      if (out instanceof Promise) this.settling = out.then(() => {}, fail);
    } catch (error) {
      this.settling = fail(error);
    }
  }

  /** Back to pending (an injected service went away): undo every effect of the activation. */
  async deactivate(): Promise<void> {
    const ctx = this.ctx;
    if (!ctx) return;
    this.ctx = undefined;
    this.state = 'pending';
    await ctx.dispose();
  }

  async dispose(): Promise<void> {
    if (this.state === 'disposed') return;
    const ctx = this.ctx;
    this.ctx = undefined;
    this.state = 'disposed';
    this.parent.registry.forks.delete(this);
    if (ctx) await ctx.dispose();
    await this.cleanup;
  }
}

function validateConfig<C>(plugin: Plugin<C>, config: unknown): unknown {
  if (!plugin || typeof plugin.name !== 'string' || typeof plugin.apply !== 'function') {
    throw new ConfigError('ctx.plugin expects an object with a string `name` and an `apply` function.');
  }
  if (!plugin.config) return config;
  const parsed = plugin.config.safeParse(config);
  if (parsed.success) return parsed.data;
  const lines = parsed.error.issues.map((issue) => {
    const path = issue.path.length > 0 ? issue.path.map(String).join('.') : '(root)';
    return `  ${path}: ${issue.message}`;
  });
  throw new ConfigError(`Invalid config for plugin "${plugin.name}":\n${lines.join('\n')}`);
}

function isContextBound(value: unknown): value is ContextBound<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as Partial<ContextBound<unknown>>)[bindContext] === 'function';
}

function defineServiceGetter(name: string): void {
  if (definedGetters.has(name)) return;
  definedGetters.add(name);
  Object.defineProperty(Context.prototype, name, {
    configurable: true,
    enumerable: false,
    get(this: Context) {
      return this.get(name);
    },
  });
}

/**
 * Makes services readable as properties (`ctx.tools`). Typed as present: a plugin that uses a
 * service declares it in `inject`, and then it exists whenever `apply` runs.
 */
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export interface Context extends Services {}

/** Creates an empty container and returns its root context. */
export function createContext(): Context {
  return new Context(new Registry(), undefined, 'root');
}
