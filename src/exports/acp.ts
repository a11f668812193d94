// `ptc-harness/acp`: the Agent Client Protocol agent that editors drive (docs/acp.md).

export { createAcpAgent, type AcpAgentOptions } from '../acp/acp-agent.js';
export { serveAcpStdio, type ServeAcpStdioOptions } from '../acp/serve-stdio.js';
