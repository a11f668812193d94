export {
  Context,
  createContext,
  bindContext,
  type ContextBound,
  type ContainerSnapshot,
  type LoadedPlugin,
  type Disposer,
  type EventName,
  type Events,
  type Plugin,
  type PluginHandle,
  type PluginState,
  type ServiceName,
  type Services,
} from './context.js';
export { loggerOf, stderrLogger, type Logger, type LogLevel } from './logger.js';
