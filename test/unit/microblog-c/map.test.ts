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
  test('an account without its id or username (its required values) is EXTRACTION_FAILED naming the value; without a creation date, createdAt is null', () => {
    const noId = account();
    delete noId.id;
    failsNaming(() => mapAccount(noId), /account id/);
    const noName = account();
    delete noName.acct;
    delete noName.username;
    failsNaming(() => mapAccount(noName), /account username/);
    const noDate = account();
    delete noDate.created_at;
    expect(mapAccount(noDate)).toMatchObject({ id: account().id, createdAt: null });
  });

  test('a post without its id or its author id is EXTRACTION_FAILED naming it (the scraper leaves it out and counts it); a media or mention without id is left out and reported', () => {
    const noId = page1()[0]!;
    delete noId.id;
    failsNaming(() => mapPost(noId), /post id/);
    failsNaming(() => mapPost(42), /post id/);
    const noAuthor = page1()[0]!;
    delete noAuthor.account.id;
    failsNaming(() => mapPost(noAuthor), /post author id/);
    const noDate = page1()[0]!;
    delete noDate.created_at;
    expect(mapPost(noDate)).toMatchObject({ id: page1()[0]!.id, createdAt: null });
    const dropped: string[] = [];
    const drops = { dropped: (resource: string, missing: string) => void dropped.push(`${resource}: ${missing}`) };
    const media = page1()[5]!;
    const mediaCount = media.media_attachments.length;
    delete media.media_attachments[0]!.id;
    expect(mapPost(media, {}, drops).media).toHaveLength(mediaCount - 1);
    const mention = page1()[1]!;
    delete mention.mentions[0]!.id;
    expect(mapPost(mention, {}, drops).mentions).toHaveLength(page1()[1]!.mentions.length - 1);
    expect(dropped).toEqual(['media attachment: media attachment id', 'mention: mentioned account id']);
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
