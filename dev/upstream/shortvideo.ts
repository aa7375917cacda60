import { fixture, type FakeReply, type RecordedRequest } from './fake';

/**
 * The shortvideo video-detail endpoint as the fake serves it: the crafted item-detail fixture
 * (test/fixtures/shortvideo/item-detail*.json, a video by ada.walks), about whichever video was
 * asked for. The replay (replay.ts) serves it for its recorded video; the gateway and contract
 * tests use it directly.
 */
export const SHORTVIDEO_ITEM_DETAIL = '/api/item/detail/';
/** The author the fixture names. */
export const SHORTVIDEO_ITEM_AUTHOR = 'ada.walks';

export interface ItemDetail {
  itemInfo: { itemStruct: { id: string; author: { uniqueId?: string } } };
}

export function itemDetail(videoId: string, file = 'shortvideo/item-detail.json'): ItemDetail {
  const detail = fixture(file) as ItemDetail;
  detail.itemInfo.itemStruct.id = videoId;
  return detail;
}

/** A route handler: the detail of the video the request names (itemId). */
export const itemDetailReply = (req: RecordedRequest): FakeReply => ({ body: itemDetail(req.query.itemId ?? '') });
