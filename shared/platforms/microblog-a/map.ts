import { type Drops, IGNORED_DROPS } from '../../scrape/context';
import { arr, bool, count, get, int, isObject, isoDate, list, listGood, need, orDropped, str, text, url } from '../../scrape/map';
import type * as R from './resources';
import { postUrl, profileUrl } from './site';

/**
 * Pure mappers from AppView JSON (app.bsky.* views) to the microblog-a resources (resources.ts).
 * Required (`need`) are only the values the lexicons require of each view and that the resource is
 * built on (REQUIRED in resources.ts: a post's uri, cid, author did and handle, indexedAt; an
 * account's did and handle); every other value is null (or "" / [] where resources.ts says so) when
 * the AppView leaves it out. A nested part that lacks its own identity (a quoted post's uri, an
 * image's fullsize URL) is left out and reported to `drops`; the post keeps.
 */
export const NO_UNAUTHENTICATED = '!no-unauthenticated';
const T = {
  images: 'app.bsky.embed.images#view',
  video: 'app.bsky.embed.video#view',
  external: 'app.bsky.embed.external#view',
  record: 'app.bsky.embed.record#view',
  recordWithMedia: 'app.bsky.embed.recordWithMedia#view',
  gallery: 'app.bsky.embed.gallery#view',
  viewRecord: 'app.bsky.embed.record#viewRecord',
  viewNotFound: 'app.bsky.embed.record#viewNotFound',
  viewBlocked: 'app.bsky.embed.record#viewBlocked',
  viewDetached: 'app.bsky.embed.record#viewDetached',
  generator: 'app.bsky.feed.defs#generatorView',
  list: 'app.bsky.graph.defs#listView',
  starterPack: 'app.bsky.graph.defs#starterPackViewBasic',
  labeler: 'app.bsky.labeler.defs#labelerView',
  reasonRepost: 'app.bsky.feed.defs#reasonRepost',
  reasonPin: 'app.bsky.feed.defs#reasonPin',
  notFoundPost: 'app.bsky.feed.defs#notFoundPost',
  blockedPost: 'app.bsky.feed.defs#blockedPost',
} as const;


const labelValues = (v: unknown): string[] => list(v, (l) => str(get(l, 'val')));
export const hasNoUnauthenticated = (labels: unknown) => labelValues(labels).includes(NO_UNAUTHENTICATED);

/** at://<did>/<collection>/<rkey> -> rkey */
export const rkeyOf = (uri: unknown): string | null => str(typeof uri === 'string' ? uri.split('/').pop() : null);

/** A handle that no longer resolves is reported as "handle.invalid": link by DID then. */
const linkName = (did: string, handle: string) => (handle !== 'handle.invalid' ? handle : did);

/**
 * The AppView leaves `verification` out for unverified accounts (false); a verification whose
 * status cannot be read says nothing either way (null).
 */
function verified(v: unknown): boolean | null {
  if (v === undefined) return false;
  const status = str(get(v, 'verifiedStatus'));
  return status === null ? null : status === 'valid';
}

/** A feed item's reason: its `$type`, else (a reason without a readable type) its shape: a repost names who reposted. */
export function reasonOf(reason: unknown): 'repost' | 'pin' | null {
  if (!isObject(reason)) return null;
  const type = str(reason.$type);
  if (type === T.reasonRepost) return 'repost';
  if (type === T.reasonPin) return 'pin';
  if (type !== null) return null;
  return isObject(reason.by) ? 'repost' : 'pin';
}

/** The identity of an account view: `role` names it in an EXTRACTION_FAILED ("author did"). */
function identity(a: unknown, role: string) {
  const did = need(str(get(a, 'did')), `${role} did`);
  const handle = need(str(get(a, 'handle')), `${role} handle`);
  return { did, handle, displayName: text(get(a, 'displayName')) ?? '', url: profileUrl(linkName(did, handle)) };
}

export function mapAccount(a: unknown, role = 'account'): R.Account {
  return {
    ...identity(a, role),
    avatarUrl: url(get(a, 'avatar')),
    pronouns: str(get(a, 'pronouns')),
    isVerified: verified(get(a, 'verification')),
    labels: labelValues(get(a, 'labels')),
    createdAt: isoDate(get(a, 'createdAt')),
  };
}

/** data.user: the account fields plus what the profile view adds. */
export function mapProfile(p: unknown): R.Profile {
  return {
    ...mapAccount(p, 'profile'),
    description: text(get(p, 'description')) ?? '',
    website: url(get(p, 'website')),
    bannerUrl: url(get(p, 'banner')),
    followersCount: count(get(p, 'followersCount')),
    followsCount: count(get(p, 'followsCount')),
    postsCount: count(get(p, 'postsCount')),
    pinnedPostUri: str(get(p, 'pinnedPost', 'uri')),
  };
}

/** Facet byte ranges index the UTF-8 encoding of the text. */
function facetText(textValue: string, facet: unknown): string {
  const start = int(get(facet, 'index', 'byteStart'));
  const end = int(get(facet, 'index', 'byteEnd'));
  if (start === null || end === null || end <= start) return '';
  return Buffer.from(textValue, 'utf8').subarray(start, end).toString('utf8');
}

function facets(record: unknown): Pick<R.Post, 'hashtags' | 'mentions' | 'links'> {
  const body = text(get(record, 'text')) ?? '';
  const out: Pick<R.Post, 'hashtags' | 'mentions' | 'links'> = { hashtags: [], mentions: [], links: [] };
  for (const facet of arr(get(record, 'facets'))) {
    for (const feature of arr(get(facet, 'features'))) {
      const type = get(feature, '$type');
      if (type === 'app.bsky.richtext.facet#tag') {
        const tag = str(get(feature, 'tag'));
        if (tag && !out.hashtags.includes(tag)) out.hashtags.push(tag);
      } else if (type === 'app.bsky.richtext.facet#mention') {
        const did = str(get(feature, 'did'));
        if (did) out.mentions.push({ did, handle: str(facetText(body, facet).replace(/^@/, '')) });
      } else if (type === 'app.bsky.richtext.facet#link') {
        const uri = url(get(feature, 'uri'));
        if (uri) out.links.push({ url: uri, text: facetText(body, facet) });
      }
    }
  }
  return out;
}

const mapImage = (img: unknown): R.Image => ({
  url: need(url(get(img, 'fullsize')), 'image URL'),
  thumbnailUrl: url(get(img, 'thumb')) ?? url(get(img, 'thumbnail')),
  alt: text(get(img, 'alt')) ?? '',
  width: int(get(img, 'aspectRatio', 'width')),
  height: int(get(img, 'aspectRatio', 'height')),
});

const mapVideo = (v: unknown): R.Video => ({
  playlistUrl: need(url(get(v, 'playlist')), 'video playlist URL'),
  thumbnailUrl: url(get(v, 'thumbnail')),
  alt: str(get(v, 'alt')),
  width: int(get(v, 'aspectRatio', 'width')),
  height: int(get(v, 'aspectRatio', 'height')),
  isGif: get(v, 'presentation') === 'gif',
});

const mapLink = (e: unknown): R.Link => ({
  url: url(get(e, 'external', 'uri')),
  title: text(get(e, 'external', 'title')) ?? '',
  description: text(get(e, 'external', 'description')) ?? '',
  thumbnailUrl: url(get(e, 'external', 'thumb')),
});

/** Media of an embed view; recordWithMedia carries its media beside the record. */
export function mapMedia(embed: unknown, drops: Drops = IGNORED_DROPS): R.Media {
  const media = get(embed, '$type') === T.recordWithMedia ? get(embed, 'media') : embed;
  const type = get(media, '$type');
  return {
    images: type === T.images ? listGood(get(media, 'images'), mapImage, 'image', drops) : type === T.gallery ? listGood(get(media, 'items'), mapImage, 'image', drops) : [],
    video: type === T.video ? orDropped(() => mapVideo(media), 'video', drops) : null,
    link: type === T.external ? mapLink(media) : null,
  };
}

/** The record view inside an embed.record view (directly, or inside recordWithMedia). */
function embeddedRecordView(embed: unknown): unknown {
  const type = get(embed, '$type');
  if (type === T.record) return get(embed, 'record');
  if (type === T.recordWithMedia) return get(embed, 'record', 'record');
  return undefined;
}

type PostCore = Pick<R.Post, 'id' | 'uri' | 'cid' | 'url' | 'text' | 'createdAt' | 'indexedAt' | 'langs' | 'author' | 'likeCount' | 'repostCount' | 'replyCount' | 'quoteCount'>;

/** What a post view and an embedded record view share: `view` holds the counts, `record` the post record. */
function postCore(view: unknown, record: unknown, role: string): PostCore {
  const author = mapAccount(get(view, 'author'), `${role} author`);
  const uri = need(str(get(view, 'uri')), `${role} uri`);
  const rkey = need(rkeyOf(uri), `${role} record key`);
  return {
    id: rkey,
    uri,
    cid: need(str(get(view, 'cid')), `${role} cid`),
    url: postUrl(linkName(author.did, author.handle), rkey),
    text: text(get(record, 'text')) ?? '',
    createdAt: isoDate(get(record, 'createdAt')),
    indexedAt: need(isoDate(get(view, 'indexedAt')), `${role} indexedAt`),
    langs: list(get(record, 'langs'), str),
    author,
    likeCount: count(get(view, 'likeCount')),
    repostCount: count(get(view, 'repostCount')),
    replyCount: count(get(view, 'replyCount')),
    quoteCount: count(get(view, 'quoteCount')),
  };
}

export function mapQuote(embed: unknown, drops: Drops = IGNORED_DROPS): R.Quote | null {
  return orDropped(() => quoteOf(embed, drops), 'quoted post', drops);
}

function quoteOf(embed: unknown, drops: Drops): R.Quote | null {
  const rec = embeddedRecordView(embed);
  const type = get(rec, '$type');
  if (!isObject(rec)) return null;
  const ref = (unavailable: 'notFound' | 'blocked' | 'detached' | 'hidden'): R.Quote => ({ uri: need(str(get(rec, 'uri')), 'quoted post uri'), unavailable });
  if (type === T.viewNotFound) return ref('notFound');
  if (type === T.viewBlocked) return ref('blocked');
  if (type === T.viewDetached) return ref('detached');
  if (type !== T.viewRecord) return null;
  const author = get(rec, 'author');
  // Logged-out viewers do not see posts of accounts that asked to be hidden from them.
  if (hasNoUnauthenticated(get(author, 'labels')) || hasNoUnauthenticated(get(rec, 'labels'))) return ref('hidden');
  return {
    ...postCore(rec, get(rec, 'value'), 'quoted post'),
    media: mapMedia(arr(get(rec, 'embeds'))[0], drops),
    labels: labelValues(get(rec, 'labels')),
    unavailable: null,
  };
}

/** Feeds, lists, starter packs and labelers embedded in a post. */
export function mapEmbeddedRecord(embed: unknown, drops: Drops = IGNORED_DROPS): R.EmbeddedRecord | null {
  return orDropped(() => embeddedRecordOf(embed, drops), 'embedded record', drops);
}

function embeddedRecordOf(embed: unknown, drops: Drops): R.EmbeddedRecord | null {
  const rec = embeddedRecordView(embed);
  const type = get(rec, '$type');
  const common = () => ({
    uri: need(str(get(rec, 'uri')), 'embedded record uri'),
    creator: get(rec, 'creator') ? orDropped(() => mapAccount(get(rec, 'creator'), 'embedded record creator'), 'embedded record creator', drops) : null,
  });
  switch (type) {
    case T.generator:
      return {
        type: 'feed',
        ...common(),
        name: text(get(rec, 'displayName')) ?? '',
        description: str(get(rec, 'description')),
        avatarUrl: url(get(rec, 'avatar')),
        likeCount: count(get(rec, 'likeCount')),
      };
    case T.list:
      return {
        type: 'list',
        ...common(),
        name: text(get(rec, 'name')) ?? '',
        description: str(get(rec, 'description')),
        avatarUrl: url(get(rec, 'avatar')),
        purpose: str(get(rec, 'purpose'))?.split('#').pop() ?? null,
        listItemCount: count(get(rec, 'listItemCount')),
      };
    case T.starterPack:
      return {
        type: 'starterPack',
        ...common(),
        name: text(get(rec, 'record', 'name')) ?? '',
        description: str(get(rec, 'record', 'description')),
        listItemCount: count(get(rec, 'listItemCount')),
        joinedAllTimeCount: count(get(rec, 'joinedAllTimeCount')),
      };
    case T.labeler:
      return { type: 'labeler', ...common(), name: text(get(rec, 'creator', 'displayName')) ?? '', likeCount: count(get(rec, 'likeCount')) };
    default:
      return null;
  }
}

/** A reference to a post in a reply context: enough to link to it and name its author. */
function mapReplyRef(p: unknown, role: string): R.ReplyRef {
  const type = get(p, '$type');
  const uri = need(str(get(p, 'uri')), `${role} uri`);
  if (type === T.notFoundPost || bool(get(p, 'notFound'))) return { uri, unavailable: 'notFound' };
  if (type === T.blockedPost || bool(get(p, 'blocked'))) return { uri, unavailable: 'blocked' };
  const author = get(p, 'author');
  if (hasNoUnauthenticated(get(author, 'labels'))) return { uri, unavailable: 'hidden' };
  const { did, handle, displayName } = identity(author, `${role} author`);
  const rkey = need(rkeyOf(uri), `${role} record key`);
  return {
    uri,
    id: rkey,
    url: postUrl(linkName(did, handle), rkey),
    text: text(get(p, 'record', 'text')) ?? '',
    author: { did, handle, displayName },
    unavailable: null,
  };
}

export function mapReplyContext(feedReply: unknown, recordReply: unknown, drops: Drops = IGNORED_DROPS): R.ReplyContext | null {
  return orDropped(() => replyContextOf(feedReply, recordReply, drops), 'reply context', drops);
}

function replyContextOf(feedReply: unknown, recordReply: unknown, drops: Drops): R.ReplyContext | null {
  if (isObject(feedReply)) {
    const gp = get(feedReply, 'grandparentAuthor');
    return {
      root: mapReplyRef(get(feedReply, 'root'), 'reply root'),
      parent: mapReplyRef(get(feedReply, 'parent'), 'reply parent'),
      grandparentAuthor: gp ? orDropped(() => mapAccount(gp, 'grandparent author'), 'grandparent author', drops) : null,
    };
  }
  if (isObject(recordReply)) {
    return {
      root: { uri: need(str(get(recordReply, 'root', 'uri')), 'reply root uri'), unavailable: 'notHydrated' },
      parent: { uri: need(str(get(recordReply, 'parent', 'uri')), 'reply parent uri'), unavailable: 'notHydrated' },
      grandparentAuthor: null,
    };
  }
  return null;
}

/** Thread gate: null when anyone may reply; otherwise who may, and which replies are hidden. */
export function mapReplySettings(threadgate: unknown): R.ReplySettings | null {
  const rec = get(threadgate, 'record');
  if (!isObject(rec)) return null;
  const rules = get(rec, 'allow');
  const lists = arr(get(threadgate, 'lists'));
  return {
    everybody: rules === undefined,
    allow: list(rules, (r): R.ReplySettings['allow'][number] | null => {
      const type = str(get(r, '$type'))?.split('#').pop();
      if (type === 'mentionRule') return { type: 'mentioned' };
      if (type === 'followerRule') return { type: 'followers' };
      if (type === 'followingRule') return { type: 'following' };
      if (type === 'listRule') {
        const listUri = str(get(r, 'list'));
        const name = str(get(lists.find((l) => get(l, 'uri') === listUri), 'name'));
        return { type: 'list', list: listUri, name };
      }
      return null;
    }),
    hiddenReplies: list(get(rec, 'hiddenReplies'), str),
  };
}

/** One feedViewPost -> one post of data.posts[] (thread position is filled in by the scraper). */
export function mapFeedItem(item: unknown, drops: Drops = IGNORED_DROPS): R.Post {
  const post = get(item, 'post');
  const record = get(post, 'record');
  const reason = get(item, 'reason');
  const isRepost = reasonOf(reason) === 'repost';
  const embed = get(post, 'embed');
  return {
    ...postCore(post, record, 'post'),
    tags: list(get(record, 'tags'), str),
    via: str(get(record, 'via')),
    ...facets(record),
    bookmarkCount: count(get(post, 'bookmarkCount')),
    media: mapMedia(embed, drops),
    quote: mapQuote(embed, drops),
    embeddedRecord: mapEmbeddedRecord(embed, drops),
    isReply: isObject(get(record, 'reply')),
    reply: mapReplyContext(get(item, 'reply'), get(record, 'reply'), drops),
    isRepost,
    repostedBy: isRepost ? orDropped(() => mapAccount(get(reason, 'by'), 'reposter'), 'reposter', drops) : null,
    repostedAt: isRepost ? isoDate(get(reason, 'indexedAt')) : null,
    isPinned: reasonOf(reason) === 'pin',
    threadPostIndex: null,
    threadPostCount: null,
    replySettings: mapReplySettings(get(post, 'threadgate')),
    labels: labelValues(get(post, 'labels')),
  };
}
