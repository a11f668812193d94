// `ptc chat` lives in src/chat/ (docs/chat.md); the CLI imports it from here.
export { EXIT_INTERRUPTED, runChat, type ChatOptions } from '../chat/run-chat.js';
