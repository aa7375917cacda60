/**
 * The routes for agents, named once for the stack, the local gateway, the handlers and the docs
 * (a module of constants, so that reading them loads nothing else).
 */
export const MCP_PATH = '/mcp';
/** The methods routed to the MCP function: POST carries the messages; GET (a server stream) and DELETE (a session) answer 405. */
export const MCP_METHODS = ['POST', 'GET', 'DELETE'] as const;
/** The llms.txt index of the API, without a key. */
export const LLMS_PATH = '/llms.txt';
