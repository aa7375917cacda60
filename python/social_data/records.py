"""Items as flat records with dotted columns (`author.handle`), the columns the command line's CSV
has (cli/columns.ts): known from the operation's schema when the items come from `.items()`, so
they are the same in every run; lists and values of open shape are one JSON-encoded cell."""
from __future__ import annotations

import json
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

Column = Tuple[str, Tuple[str, ...], bool]


def _at(value: Any, path: Sequence[str]) -> Any:
    here = value
    for key in path:
        if not isinstance(here, Mapping):
            return None
        here = here.get(key)
    return here


def _cell(value: Any, as_json: bool) -> Any:
    if value is None:
        return None
    if as_json or isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return value


def _columns_of(items: Sequence[Mapping[str, Any]]) -> List[Column]:
    """Without the schema (a list of dicts of any origin): every dotted path the items have, first seen first."""
    seen: Dict[str, Column] = {}

    def walk(value: Mapping[str, Any], prefix: Tuple[str, ...]) -> None:
        for key, child in value.items():
            path = prefix + (str(key),)
            if isinstance(child, Mapping) and child:
                walk(child, path)
            else:
                name = ".".join(path)
                if name not in seen:
                    seen[name] = (name, path, isinstance(child, (list, dict)))

    for item in items:
        if isinstance(item, Mapping):
            walk(item, ())
    # A value that is null in one item and an object in another is its fields' columns only.
    parents = {c[1][:i] for c in seen.values() for i in range(1, len(c[1]))}
    return [c for c in seen.values() if c[1] not in parents]


def to_records(items: Iterable[Mapping[str, Any]], columns: Optional[Sequence[Column]] = None) -> List[Dict[str, Any]]:
    """One flat dict per item: `{"id": ..., "author.handle": ..., "tags": '["a","b"]'}`. The columns
    are those of the operation when `items` is what `.items()` returned (or `columns` says),
    otherwise every dotted path the items have. A null or absent value is None."""
    known = columns if columns is not None else getattr(items, "columns", None) or None
    rows = list(items)
    cols = list(known) if known else _columns_of(rows)
    return [{name: _cell(_at(item, path), as_json) for name, path, as_json in cols} for item in rows]


def to_dataframe(items: Iterable[Mapping[str, Any]], columns: Optional[Sequence[Column]] = None) -> Any:
    """A pandas DataFrame of `to_records(items)`, its columns in the schema's order. Needs pandas
    (not a dependency of this package: `pip install pandas`)."""
    try:
        import pandas as pd  # type: ignore[import-not-found]
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError("to_dataframe needs pandas: pip install pandas (to_records needs nothing)") from e
    known = columns if columns is not None else getattr(items, "columns", None) or None
    rows = to_records(items, known)
    names = [c[0] for c in known] if known else (list(rows[0].keys()) if rows else [])
    return pd.DataFrame.from_records(rows, columns=names)
