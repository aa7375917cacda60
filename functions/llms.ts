import { llmsHandler } from '../shared/public/llms-txt';

// GET /llms.txt, without a key: the operations, their parameters and the MCP URL, for agents.
export const handler = llmsHandler;
