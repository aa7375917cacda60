import * as v from 'valibot';
import { imageUrl, itemsOf, mapPage, resolvedInfluencerId, socialLinksOf, themeOf } from '../../../shared/platforms/linkpage/map';
import { CreatorPage } from '../../../shared/platforms/linkpage/resources';
import { fixture } from '../../../dev/upstream/fake';

/** Mappers on the crafted GraphQL answers (test/fixtures/linkpage/; no real capture exists). */
const PAGE = (fixture('linkpage/page.json') as { data: Record<string, unknown> }).data;
const IMG = 'https://res.cloudinary.com/pillario/image/upload/';

describe('linkpage mapPage on the crafted page', () => {
  const page = mapPage(PAGE, 'marisolcooks');

  it('satisfies the resource schema', () => {
    const r = v.safeParse(CreatorPage, page);
    if (!r.success) throw new Error(JSON.stringify(r.issues.map((i) => [v.getDotPath(i), i.message])));
  });

  it('maps the profile: names, tagline, location, images resolved to URLs, ids, createdAt with its offset as given', () => {
    expect(page).toMatchObject({
      username: 'MarisolCooks',
      name: 'Marisol Reyes',
      displayName: 'Marisol Cooks',
      tagline: 'Thirty-minute dinners for busy weeks',
      location: 'Valencia, Spain',
      bannerImageUrl: `${IMG}user-image/banner/7a6b5c4d-3e2f-4a1b-9c8d-7e6f5a4b3c2d`,
      avatarUrl: `${IMG}user-image/page/0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0`,
      influencerId: '5f0c3a2e-8b1d-4e6f-9a27-3c4d5e6f7a81',
      userId: 'b7e6d5c4-3a2b-4c1d-8e9f-0a1b2c3d4e5f',
      createdAt: '2022-08-14T09:31:07.218734+00:00',
      theme: { name: 'terracotta', textColor: '#2B1B17', backgroundColor: '#F6E7DA', itemStyle: 'rounded', itemsFont: 'DM Sans', isDark: false, backgroundImageUrl: null },
    });
    // Private contact data of the account is never returned.
    expect(JSON.stringify(page)).not.toContain('marisol.private@');
  });

  it('lists the social links: header icons first (e-mail as mailto:, hidden and empty ones out), then connected accounts, upper-case kinds, each once', () => {
    expect(page.socialLinks).toEqual([
      { platform: 'EMAIL', url: 'mailto:hello@marisolcooks.example' },
      { platform: 'YOUTUBE', url: 'https://youtube.com/@marisolcooks' },
      { platform: 'PINTEREST', url: 'https://pinterest.com/marisolcooks/' },
      { platform: 'INSTAGRAM', url: 'https://www.instagram.com/marisol.cooks' },
      { platform: 'TIKTOK', url: 'https://www.tiktok.com/@marisolcooks' },
      { platform: 'APPLE_APP_STORE', url: 'https://apps.apple.com/app/weeknight-pans/id1000000001' },
    ]);
  });

  it('lists the items by order, every kind with its upper-case type; deleted, hidden and referral items left out; unordered last', () => {
    expect(page.items.map((i) => [i.type, i.order, i.title])).toEqual([
      ['EXPERIENCE', 0, 'Cook-along on Zoom'],
      ['FEATURED_PRODUCT', 1, 'Carbon-steel pan, 28 cm'],
      ['CUSTOM_LINK', 2, 'Free 5-day meal plan'],
      ['FEATURED_PRODUCT', 3, 'Knife roll'],
      ['COLLECTION', 6, 'Spring recipes'],
      ['VIDEO', 8, 'Knife skills in 60 seconds'],
      ['CUSTOM_LINK', null, 'Contact'],
    ]);
    // 7 returned; the page has 9 (the hidden link and the hidden video count, the deleted link and the referral link do not).
    expect(page.itemCount).toBe(7);
    expect(page.totalItems).toBe(9);
  });

  it('maps each kind field by field', () => {
    const byId = Object.fromEntries(page.items.map((i) => [i.id, i]));
    expect(byId['c0ffee00-1111-4aaa-8bbb-000000000002']).toEqual({
      id: 'c0ffee00-1111-4aaa-8bbb-000000000002', type: 'CUSTOM_LINK', title: 'Free 5-day meal plan', subtitle: 'Five dinners, one shopping list.',
      url: 'https://www.marisolcooks.example/meal-plan', imageUrl: `${IMG}user-image/page/aa11bb22-cc33-4d44-8e55-ff6600778899`, cta: 'Get it',
      clicks: 5120, order: 2, price: null, currency: null, brandName: null, text: null, blocks: null,
    });
    expect(byId['d00d0000-2222-4ccc-8ddd-000000000001']).toEqual({
      id: 'd00d0000-2222-4ccc-8ddd-000000000001', type: 'FEATURED_PRODUCT', title: 'Carbon-steel pan, 28 cm', subtitle: 'The pan I use in every video.',
      url: 'https://shop.example/pans/28', imageUrl: 'https://images.shop.example/pans/28.jpg', cta: null,
      clicks: null, order: 1, price: 44.9, currency: 'EUR', brandName: 'Olla & Co', text: 'The pan I use in every video.', blocks: null,
    });
    // A price the creator hides is not returned (the upstream keeps 0 there).
    expect(byId['d00d0000-2222-4ccc-8ddd-000000000003']).toMatchObject({ price: null, currency: null, brandName: null, imageUrl: `${IMG}page-block-image/digital-product/12ab34cd` });
    expect(byId['e1e1e1e1-3333-4eee-8fff-000000000000']).toMatchObject({ type: 'EXPERIENCE', subtitle: 'Saturdays, 6 pm CET', cta: 'Book a seat', clicks: 310, price: 15, currency: 'EUR', text: 'Ninety minutes, one pan, four servings.', blocks: null });
    expect(byId['e1e1e1e1-3333-4eee-8fff-000000000006']!.blocks).toEqual([
      { id: 'f0f0-1', type: 'LINK', title: 'Pea risotto', url: 'https://www.marisolcooks.example/pea-risotto', imageUrl: `${IMG}user-image/page/pea01` },
      { id: 'f0f0-3', type: 'VIDEO', title: 'Asparagus, three ways', url: 'https://youtube.com/watch?v=abc123xyz00', imageUrl: null },
    ]);
  });

  it('is NOT_FOUND when the page query finds no influencer', () => {
    expect(() => mapPage({ ...PAGE, influencer: null }, 'marisolcooks')).toThrow(expect.objectContaining({ code: 'NOT_FOUND' }));
  });

  it('is EXTRACTION_FAILED, naming it, without its influencer id; a creation date, user or item id it cannot read is null or left out', () => {
    const influencer = PAGE.influencer as Record<string, unknown>;
    expect(() => mapPage({ ...PAGE, influencer: { ...influencer, id: undefined } }, 'x')).toThrow(expect.objectContaining({ code: 'EXTRACTION_FAILED', internal: expect.stringMatching(/influencer id/) }));
    expect(mapPage({ ...PAGE, influencer: { ...influencer, created_at: 'yesterday' } }, 'x')).toMatchObject({ createdAt: null });
    expect(mapPage({ ...PAGE, influencer: { ...influencer, user: null } }, 'x')).toMatchObject({ userId: null, name: null, createdAt: influencer.created_at });
    const links = PAGE.links as Record<string, unknown>[];
    const dropped: string[] = [];
    const page = mapPage({ ...PAGE, links: [{ ...links[0], link_id: undefined }, ...links.slice(1)] }, 'x', { dropped: (resource, missing) => void dropped.push(`${resource}: ${missing}`) });
    expect(page.items.map((i) => i.id)).not.toContain(links[0]!.link_id);
    expect(dropped).toEqual(['item: custom link id']);
  });
});

describe('linkpage readers', () => {
  it.each([
    ['cloudinary:user-image/page/abc', `${IMG}user-image/page/abc`],
    ['https://cdn.example/a.png', 'https://cdn.example/a.png'],
    ['javascript:alert(1)', null],
    ['', null],
    [null, null],
  ])('imageUrl(%p) = %p', (raw, out) => expect(imageUrl(raw)).toBe(out));

  it('resolves only the exact username (case-insensitively), banner key first, then slug, then alias', () => {
    const data = { byBanner: [{ influencer_id: 'b', url_key: 'Mari_x' }], bySlug: [{ influencer_id: 's', slug: 'marisol' }], byAlias: [{ id: 'a', alias: 'marisol' }] };
    expect(resolvedInfluencerId(data, 'marisol')).toBe('s');
    expect(resolvedInfluencerId(data, 'mari_x')).toBe('b');
    // "_" would match any character in ILIKE: a near name is not this page.
    expect(resolvedInfluencerId(data, 'mariax')).toBeNull();
    expect(resolvedInfluencerId({ byBanner: [], bySlug: [], byAlias: [] }, 'marisol')).toBeNull();
  });

  it('drops an e-mail entry that is not an address, and a link entry that is not a URL', () => {
    expect(socialLinksOf({ socials: { EMAIL: { value: 'not an address' }, WEBSITE: { value: 'just words' }, snapchat: { value: 'https://snapchat.com/add/mc' } } }, [])).toEqual([{ platform: 'SNAPCHAT', url: 'https://snapchat.com/add/mc' }]);
  });

  it('gives a page without theme settings a theme of nulls (not invented values)', () => {
    expect(themeOf({})).toEqual({ name: null, textColor: null, backgroundColor: null, itemStyle: null, itemsFont: null, isDark: null, backgroundImageUrl: null });
  });

  it('gives an item the upstream sends without clicks a null click count, never an invented 0', () => {
    const link = (PAGE.links as Record<string, unknown>[])[0]!;
    const block = (PAGE.builderItems as Record<string, unknown>[])[0]!;
    const { items } = itemsOf({ links: [{ ...link, clicks: undefined }], products: [], builderItems: [{ ...block, clicks: undefined }] });
    expect(items.map((i) => [i.type, i.clicks])).toEqual(expect.arrayContaining([['CUSTOM_LINK', null], ['EXPERIENCE', null]]));
    expect(items).toHaveLength(2);
  });

  it('counts an empty page as 0 of 0', () => {
    expect(itemsOf({ links: [], products: [] })).toEqual({ items: [], totalItems: 0 });
  });
});
