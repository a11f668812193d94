// `ptc-harness/context`: the plugin container: scopes, services, events, plugin handles and their
// state (docs/presets.md, "Plugins").

export * from '../context/index.js';
