// `ptc-harness/ui`: the local web UI server (`ptc ui`, docs/ui.md).

export { startUiServer, type UiServer, type UiServerOptions } from '../ui/server.js';
