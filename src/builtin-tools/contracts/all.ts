// Every built-in tool's contract by name: what scripts/gen-builtin-schemas.mjs renders into
// schemas.generated.ts, and what the tests compare the registered tools with. Imports zod and every
// contract, so no tool imports this file.

import * as bash from './bash.js';
import * as edit from './edit.js';
import * as glob from './glob.js';
import * as goalDone from './goal-done.js';
import * as grep from './grep.js';
import * as persistentBash from './persistent-bash.js';
import * as planPropose from './plan-propose.js';
import * as read from './read.js';
import * as runCode from './run-code.js';
import * as skill from './skill.js';
import * as strReplaceEditor from './str-replace-editor.js';
import * as task from './task.js';
import * as todo from './todo.js';
import * as webFetch from './web-fetch.js';
import * as webSearch from './web-search.js';
import * as write from './write.js';

/** Contract name (its file's name) -> contract; sorted by name. */
export const CONTRACTS = {
  bash,
  edit,
  glob,
  'goal-done': goalDone,
  grep,
  'persistent-bash': persistentBash,
  'plan-propose': planPropose,
  read,
  'run-code': runCode,
  skill,
  'str-replace-editor': strReplaceEditor,
  task,
  todo,
  'web-fetch': webFetch,
  'web-search': webSearch,
  write,
} as const;
