import { OpenAiModelClient } from '../../core/models/index.js';
import { startModelServer, type ChatRequestBody, type ScriptedReply } from '../support/model-server.js';
import { modelClientContract } from './model-client.contract.js';

modelClientContract('OpenAiModelClient (openai package) against a scriptable OpenAI-compatible server', async () => {
  let reply: (body: ChatRequestBody) => ScriptedReply = () => ({ content: 'ok' });
  const server = await startModelServer((b) => reply(b));
  return {
    client: new OpenAiModelClient({ baseUrl: server.baseUrl, apiKey: 'sk-contract' }),
    impatient: new OpenAiModelClient({ baseUrl: server.baseUrl, apiKey: 'sk-contract', timeoutMs: 300 }),
    unreachable: new OpenAiModelClient({ baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'k', timeoutMs: 2000 }),
    server,
    script: (r) => (reply = r),
    cleanup: () => server.close(),
  };
});
