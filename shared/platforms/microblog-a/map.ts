import { arr, bool, count, get, int, isObject, isoDate, list, str, text, url } from '../../scrape/map';
import { postUrl, profileUrl } from './site';

/**
 * Pure mappers from AppView JSON (app.bsky.* views) to our microblog-a resources.
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
const linkName = (author: unknown) => {
  const handle = str(get(author, 'handle'));
  return handle && handle !== 'handle.invalid' ? handle : (str(get(author, 'did')) ?? '');
};

export function mapAccount(a: unknown) {
  return {
    did: str(get(a, 'did')),
    handle: str(get(a, 'handle')),
    displayName: text(get(a, 'displayName')) ?? '',
    url: profileUrl(linkName(a)),
    avatarUrl: url(get(a, 'avatar')),
    pronouns: str(get(a, 'pronouns')),
    isVerified: get(a, 'verification', 'verifiedStatus') === 'valid',
    labels: labelValues(get(a, 'labels')),
    createdAt: isoDate(get(a, 'createdAt')),
  };
}

/** data.user: the account fields plus what the profile view adds. */
export function mapProfile(p: unknown) {
  return {
    ...mapAccount(p),
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

function facets(record: unknown) {
  const body = text(get(record, 'text')) ?? '';
  const hashtags: string[] = [];
  const mentions: { did: string; handle: string | null }[] = [];
  const links: { url: string; text: string }[] = [];
  for (const facet of arr(get(record, 'facets'))) {
    for (const feature of arr(get(facet, 'features'))) {
      const type = get(feature, '$type');
      if (type === 'app.bsky.richtext.facet#tag') {
        const tag = str(get(feature, 'tag'));
        if (tag && !hashtags.includes(tag)) hashtags.push(tag);
      } else if (type === 'app.bsky.richtext.facet#mention') {
        const did = str(get(feature, 'did'));
        if (did) mentions.push({ did, handle: str(facetText(body, facet).replace(/^@/, '')) });
      } else if (type === 'app.bsky.richtext.facet#link') {
        const uri = url(get(feature, 'uri'));
        if (uri) links.push({ url: uri, text: facetText(body, facet) });
      }
    }
  }
  return { hashtags, mentions, links };
}

const mapImage = (img: unknown) => ({
  url: url(get(img, 'fullsize')),
  thumbnailUrl: url(get(img, 'thumb')) ?? url(get(img, 'thumbnail')),
  alt: text(get(img, 'alt')) ?? '',
  width: int(get(img, 'aspectRatio', 'width')),
  height: int(get(img, 'aspectRatio', 'height')),
});

const mapVideo = (v: unknown) => ({
  playlistUrl: url(get(v, 'playlist')),
  thumbnailUrl: url(get(v, 'thumbnail')),
  alt: str(get(v, 'alt')),
  width: int(get(v, 'aspectRatio', 'width')),
  height: int(get(v, 'aspectRatio', 'height')),
  isGif: get(v, 'presentation') === 'gif',
});

const mapLink = (e: unknown) => ({
  url: url(get(e, 'external', 'uri')),
  title: text(get(e, 'external', 'title')) ?? '',
  description: text(get(e, 'external', 'description')) ?? '',
  thumbnailUrl: url(get(e, 'external', 'thumb')),
});

/** Media of an embed view; recordWithMedia carries its media beside the record. */
export function mapMedia(embed: unknown) {
  const media = get(embed, '$type') === T.recordWithMedia ? get(embed, 'media') : embed;
  const type = get(media, '$type');
  return {
    images: type === T.images ? list(get(media, 'images'), mapImage) : type === T.gallery ? list(get(media, 'items'), mapImage) : [],
    video: type === T.video ? mapVideo(media) : null,
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

/** What a post view and an embedded record view share: `view` holds the counts, `record` the post record. */
function postCore(view: unknown, record: unknown) {
  const author = get(view, 'author');
  const uri = str(get(view, 'uri'));
  const rkey = rkeyOf(uri) ?? '';
  return {
    id: rkey,
    uri,
    cid: str(get(view, 'cid')),
    url: postUrl(linkName(author), rkey),
    text: text(get(record, 'text')) ?? '',
    createdAt: isoDate(get(record, 'createdAt')),
    indexedAt: isoDate(get(view, 'indexedAt')),
    langs: list(get(record, 'langs'), str),
    author: mapAccount(author),
    likeCount: count(get(view, 'likeCount')) ?? 0,
    repostCount: count(get(view, 'repostCount')) ?? 0,
    replyCount: count(get(view, 'replyCount')) ?? 0,
    quoteCount: count(get(view, 'quoteCount')) ?? 0,
  };
}

export function mapQuote(embed: unknown) {
  const rec = embeddedRecordView(embed);
  const type = get(rec, '$type');
  if (!isObject(rec)) return null;
  const uri = str(get(rec, 'uri'));
  if (type === T.viewNotFound) return { uri, unavailable: 'notFound' };
  if (type === T.viewBlocked) return { uri, unavailable: 'blocked' };
  if (type === T.viewDetached) return { uri, unavailable: 'detached' };
  if (type !== T.viewRecord) return null;
  const author = get(rec, 'author');
  // Logged-out viewers do not see posts of accounts that asked to be hidden from them.
  if (hasNoUnauthenticated(get(author, 'labels')) || hasNoUnauthenticated(get(rec, 'labels'))) return { uri, unavailable: 'hidden' };
  return {
    ...postCore(rec, get(rec, 'value')),
    media: mapMedia(arr(get(rec, 'embeds'))[0]),
    labels: labelValues(get(rec, 'labels')),
    unavailable: null,
  };
}

/** Feeds, lists, starter packs and labelers embedded in a post. */
export function mapEmbeddedRecord(embed: unknown) {
  const rec = embeddedRecordView(embed);
  const type = get(rec, '$type');
  const common = { uri: str(get(rec, 'uri')), creator: get(rec, 'creator') ? mapAccount(get(rec, 'creator')) : null };
  switch (type) {
    case T.generator:
      return {
        type: 'feed',
        ...common,
        name: text(get(rec, 'displayName')) ?? '',
        description: str(get(rec, 'description')),
        avatarUrl: url(get(rec, 'avatar')),
        likeCount: count(get(rec, 'likeCount')),
      };
    case T.list:
      return {
        type: 'list',
        ...common,
        name: text(get(rec, 'name')) ?? '',
        description: str(get(rec, 'description')),
        avatarUrl: url(get(rec, 'avatar')),
        purpose: str(get(rec, 'purpose'))?.split('#').pop() ?? null,
        listItemCount: count(get(rec, 'listItemCount')),
      };
    case T.starterPack:
      return {
        type: 'starterPack',
        ...common,
        name: text(get(rec, 'record', 'name')) ?? '',
        description: str(get(rec, 'record', 'description')),
        listItemCount: count(get(rec, 'listItemCount')),
        joinedAllTimeCount: count(get(rec, 'joinedAllTimeCount')),
      };
    case T.labeler:
      return { type: 'labeler', ...common, name: text(get(rec, 'creator', 'displayName')) ?? '', likeCount: count(get(rec, 'likeCount')) };
    default:
      return null;
  }
}

/** A reference to a post in a reply context: enough to link to it and name its author. */
function mapReplyRef(p: unknown) {
  const type = get(p, '$type');
  const uri = str(get(p, 'uri'));
  if (type === T.notFoundPost || bool(get(p, 'notFound'))) return { uri, unavailable: 'notFound' };
  if (type === T.blockedPost || bool(get(p, 'blocked'))) return { uri, unavailable: 'blocked' };
  const author = get(p, 'author');
  if (hasNoUnauthenticated(get(author, 'labels'))) return { uri, unavailable: 'hidden' };
  const rkey = rkeyOf(uri) ?? '';
  return {
    uri,
    id: rkey,
    url: postUrl(linkName(author), rkey),
    text: text(get(p, 'record', 'text')) ?? '',
    author: { did: str(get(author, 'did')), handle: str(get(author, 'handle')), displayName: text(get(author, 'displayName')) ?? '' },
    unavailable: null,
  };
}

export function mapReplyContext(feedReply: unknown, recordReply: unknown) {
  if (isObject(feedReply)) {
    const gp = get(feedReply, 'grandparentAuthor');
    return {
      root: mapReplyRef(get(feedReply, 'root')),
      parent: mapReplyRef(get(feedReply, 'parent')),
      grandparentAuthor: gp ? mapAccount(gp) : null,
    };
  }
  if (isObject(recordReply)) {
    return {
      root: { uri: str(get(recordReply, 'root', 'uri')), unavailable: 'notHydrated' },
      parent: { uri: str(get(recordReply, 'parent', 'uri')), unavailable: 'notHydrated' },
      grandparentAuthor: null,
    };
  }
  return null;
}

/** Thread gate: null when anyone may reply; otherwise who may, and which replies are hidden. */
export function mapReplySettings(threadgate: unknown) {
  const rec = get(threadgate, 'record');
  if (!isObject(rec)) return null;
  const rules = get(rec, 'allow');
  const lists = arr(get(threadgate, 'lists'));
  return {
    everybody: rules === undefined,
    allow: list(rules, (r) => {
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
export function mapFeedItem(item: unknown) {
  const post = get(item, 'post');
  const record = get(post, 'record');
  const reason = get(item, 'reason');
  const isRepost = get(reason, '$type') === T.reasonRepost;
  const embed = get(post, 'embed');
  const { hashtags, mentions, links } = facets(record);
  return {
    ...postCore(post, record),
    tags: list(get(record, 'tags'), str),
    via: str(get(record, 'via')),
    hashtags,
    mentions,
    links,
    bookmarkCount: count(get(post, 'bookmarkCount')) ?? 0,
    media: mapMedia(embed),
    quote: mapQuote(embed),
    embeddedRecord: mapEmbeddedRecord(embed),
    isReply: isObject(get(record, 'reply')),
    reply: mapReplyContext(get(item, 'reply'), get(record, 'reply')),
    isRepost,
    repostedBy: isRepost ? mapAccount(get(reason, 'by')) : null,
    repostedAt: isRepost ? isoDate(get(reason, 'indexedAt')) : null,
    isPinned: get(reason, '$type') === T.reasonPin,
    threadPostIndex: null as number | null,
    threadPostCount: null as number | null,
    replySettings: mapReplySettings(get(post, 'threadgate')),
    labels: labelValues(get(post, 'labels')),
  };
}

export type Post = ReturnType<typeof mapFeedItem>;
