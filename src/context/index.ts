export {
  Context,
  createContext,
  bindContext,
  type ContextBound,
  type Disposer,
  type EventName,
  type Events,
  type Plugin,
  type PluginHandle,
  type PluginState,
  type ServiceName,
  type Services,
} from './context.js';
