import { mapAccount, mapPost } from '../../../shared/platforms/microblog-c/map';
import { fixture } from '../../../dev/upstream/fake';

/**
 * microblog-c mappers on items of the crafted fixtures: ids, usernames and creation dates, which
 * the upstream always sends, are required (EXTRACTION_FAILED naming the field, never a half-empty
 * resource); what it may leave out is null only where resources.ts records the deviation.
 */
type Raw = Record<string, unknown> & { account: Record<string, unknown>; media_attachments: Record<string, unknown>[]; mentions: Record<string, unknown>[] };
const page1 = () => fixture('microblog-c/statuses-page1.json') as Raw[];
const account = () => fixture('microblog-c/account.json') as Record<string, unknown>;

const failsNaming = (f: () => unknown, field: RegExp) => expect(f).toThrow(expect.objectContaining({ code: 'EXTRACTION_FAILED', internal: expect.stringMatching(field) }));

describe('microblog-c mappers', () => {
  test('an account without its id, username or creation date is EXTRACTION_FAILED naming the field', () => {
    for (const [field, what] of [
      ['id', /account id/],
      ['created_at', /account creation date/],
    ] as const) {
      const a = account();
      delete a[field];
      failsNaming(() => mapAccount(a), what);
    }
    const a = account();
    delete a.acct;
    delete a.username;
    failsNaming(() => mapAccount(a), /account username/);
  });

  test('a post without a creation date or an author id, a media without id, a mention without id: EXTRACTION_FAILED naming it', () => {
    const noDate = page1()[0]!;
    delete noDate.created_at;
    failsNaming(() => mapPost(noDate), /post creation date/);
    const noAuthor = page1()[0]!;
    delete noAuthor.account.id;
    failsNaming(() => mapPost(noAuthor), /post author id/);
    const media = page1()[5]!;
    delete media.media_attachments[0]!.id;
    failsNaming(() => mapPost(media), /media attachment id/);
    const mention = page1()[1]!;
    delete mention.mentions[0]!.id;
    failsNaming(() => mapPost(mention), /mentioned account id/);
  });

  test('an item without an id is not a post (the scraper counts it as unreadable)', () => {
    const item = page1()[0]!;
    delete item.id;
    expect(mapPost(item)).toBeNull();
    expect(mapPost(42)).toBeNull();
  });

  test('the recorded deviations are null: withheld counts, an account that never posted, unmeasured media', () => {
    const a = { ...account(), followers_count: -1, following_count: -1, statuses_count: -1, last_status_at: null };
    expect(mapAccount(a)).toMatchObject({ followerCount: null, followingCount: null, postCount: null, lastPostDate: null });
    const item = page1()[5]!;
    delete item.media_attachments[0]!.meta;
    item.media_attachments[0]!.preview_url = null;
    expect(mapPost(item)!.media[0]).toMatchObject({ width: null, height: null, previewUrl: null, durationSeconds: null });
  });
});
