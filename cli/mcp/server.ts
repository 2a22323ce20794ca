import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { ApiClient } from '../api-client.js';
import { registerTools } from './tools.js';

/** The MCP server of Crucible: the assistant tools over one API client. */
export function createMcpServer(api: ApiClient): McpServer {
  const server = new McpServer({ name: 'crucible', version: '0.1.2' });
  registerTools(server, api);
  return server;
}

/** `crucible mcp`: serves the tools over standard input and output until the input closes. */
export async function runStdioServer(explicit: { apiKey?: string; url?: string }): Promise<void> {
  const server = createMcpServer(ApiClient.from(explicit));
  await server.connect(new StdioServerTransport());
}
