import { describe, expect, it } from 'vitest';
import { fmtOp, fmtValue, keyId, keyText, longNamesOf } from './ops';
import { wholeText } from '../dom/long-name';

const longKey = { name: 'key 1', shown: 'kkkk\u2026[key 1, 1048576 bytes]', bytes: 1048576 };
const longValue = { name: 'value 1', shown: 'vvvv\u2026[value 1, 70 bytes]', bytes: 70 };

describe('values', () => {
  it('never print a string like nil, null or a number', () => {
    for (const s of ['nil', 'null', '7', '', 'a b']) {
      expect(fmtValue(s)).toBe(JSON.stringify(s));
      expect(fmtValue(s)).not.toBe(fmtValue(null));
      expect(fmtValue(s)).not.toBe('nil');
    }
    expect(fmtValue('7')).not.toBe(fmtValue(7));
  });
  it('print long names by their shortened form, and know them apart', () => {
    expect(fmtOp(['w', longKey, longValue])).toBe(`w ${longKey.shown} \u2190 ${longValue.shown}`);
    expect(fmtOp(['r', longKey, [1, longValue]])).toBe(`r ${longKey.shown} \u2192 [1 ${longValue.shown}]`);
    expect(keyText(longKey)).toBe(longKey.shown);
    expect(keyId(longKey)).not.toBe(keyId({ ...longKey, name: 'key 2' }));
    expect(keyId(7)).not.toBe(keyId('7'));
    expect(longNamesOf(['r', longKey, [longValue, longValue]]).map((n) => n.name)).toEqual(['key 1', 'value 1']);
    expect(wholeText({ keys: ['K'], values: ['V'], ids: [] }, longValue)).toBe('V');
    expect(wholeText({ keys: ['K'], values: ['V'], ids: [] }, longKey)).toBe('K');
  });
});

describe('tables', () => {
  it('print a select with its predicate and the rows it returned', () => {
    expect(fmtOp(['select', 'value % 3 = 0', [[3, 30], ['a', 'b']]] as never)).toBe('select value % 3 = 0 \u2192 {(3, 30), (a, "b")}');
    expect(fmtOp(['select', 'true', []] as never)).toBe('select true \u2192 {}');
    expect(fmtOp(['w', 2, null])).toBe('w 2 \u2190 null');
  });
});
