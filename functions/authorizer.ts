import { authorizerHandler } from '../shared/auth/authorizer';

export const handler = authorizerHandler;
