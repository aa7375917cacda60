import { coldMicroblogB, FakeGuestTokens, microblogBRoutes } from '../../dev/upstream/microblog-b';
import { type GatewayFile, withGateway } from './harness';

/**
 * The set-up of the microblog-b gateway files: one harness and team (withGateway), and before each
 * test a cold container (no guest token, static query ids, no remembered handles) and the fake's
 * microblog-b routes, guarded by the file's guest-token helper (`tokens`).
 */
export function withMicroblogB(credits: number, use: (g: GatewayFile & { tokens: FakeGuestTokens }) => void): void {
  const tokens = new FakeGuestTokens();
  let file: GatewayFile | undefined;
  withGateway(credits, (g) => {
    file = g;
    use({ ...g, tokens });
  });
  beforeEach(async () => {
    file!.h.fake.reset();
    tokens.clear();
    await coldMicroblogB();
    microblogBRoutes(file!.h.fake, {}, tokens);
  });
}
