"""Collections problems of the problem bank (checked by data/problems/bank_check.py)."""
PROBLEMS = [
    dict(split="train", difficulty="easy", task="returns the keys of `d` whose value equals `value`, sorted alphabetically (an empty list if there are none).", ref="""
def keys_with_value(d: dict[str, int], value: int) -> list[str]:
    return sorted(k for k, v in d.items() if v == value)
""", cases=[([{"b": 1, "a": 1, "c": 2}, 1], ["a", "b"]), ([{"x": 3}, 4], []), ([{}, 0], []),
            ([{"z": 0, "y": 0}, 0], ["y", "z"]), ([{"p": 5, "q": 6}, 6], ["q"])]),
    dict(split="train", difficulty="easy", task="returns a new dictionary holding only the entries of `d` whose value is strictly greater than `threshold`.", ref="""
def entries_above(d: dict[str, int], threshold: int) -> dict[str, int]:
    return {k: v for k, v in d.items() if v > threshold}
""", cases=[([{"a": 5, "b": 2, "c": 9}, 4], {"a": 5, "c": 9}), ([{"a": 4}, 4], {}), ([{}, 0], {}),
            ([{"x": -1, "y": 0}, -1], {"y": 0}), ([{"p": 10, "q": 11}, 9], {"p": 10, "q": 11})]),
    dict(split="train", difficulty="easy", task="returns True if the dictionaries `a` and `b` have exactly the same keys (their values do not matter), and False otherwise.", ref="""
def same_keys(a: dict[str, int], b: dict[str, int]) -> bool:
    return a.keys() == b.keys()
""", cases=[([{"a": 1, "b": 2}, {"b": 5, "a": 0}], True), ([{"a": 1}, {"a": 1, "b": 1}], False), ([{}, {}], True), ([{"x": 1}, {"y": 1}], False),
            ([{"k": 1}, {"k": 2}], True)]),
    dict(split="train", difficulty="easy", task="receives `d`, which maps each name to the name of the person they chose, and returns the sorted list of mutual pairs `[a, b]`, with `a` alphabetically before `b`, where `a` chose `b` and `b` chose `a` (choosing oneself makes no pair).", ref="""
def mutual_pairs(d: dict[str, str]) -> list[list[str]]:
    return sorted([a, b] for a, b in d.items() if a < b and d.get(b) == a)
""", cases=[([{"ann": "bob", "bob": "ann", "cy": "ann"}], [["ann", "bob"]]), ([{}], []), ([{"x": "x"}], []), ([{"a": "b", "b": "c", "c": "a"}], []),
            ([{"d": "c", "c": "d", "a": "b", "b": "a"}], [["a", "b"], ["c", "d"]]), ([{"b": "a", "a": "b"}], [["a", "b"]])]),
    dict(split="train", difficulty="medium", task="returns the keys of `d` ordered by their values from largest to smallest; keys with equal values are ordered alphabetically.", ref="""
def keys_by_value_desc(d: dict[str, int]) -> list[str]:
    return sorted(d, key=lambda k: (-d[k], k))
""", cases=[([{"a": 1, "b": 3, "c": 2}], ["b", "c", "a"]), ([{"x": 5, "w": 5, "y": 7}], ["y", "w", "x"]),
            ([{}], []), ([{"m": -1, "n": 0}], ["n", "m"]), ([{"b": 2, "a": 2}], ["a", "b"])]),
    dict(split="train", difficulty="medium", task="follows the keys of `path` one after another into the nested dictionary `d` and returns the value reached; it returns None if a key is missing or a value on the way is not a dictionary. An empty `path` returns `d` itself.", ref="""
def nested_get(d: dict, path: list[str]):
    cur = d
    for key in path:
        if not isinstance(cur, dict) or key not in cur:
            return None
        cur = cur[key]
    return cur
""", cases=[([{"a": {"b": {"c": 1}}}, ["a", "b", "c"]], 1), ([{"a": {"b": 2}}, ["a", "x"]], None),
            ([{"a": 5}, ["a", "b"]], None), ([{"a": 1}, []], {"a": 1}), ([{"a": {"b": [1, 2]}}, ["a", "b"]], [1, 2]),
            ([{"a": {"b": 2}}, ["a"]], {"b": 2}), ([{"a": "xyz"}, ["a", "x"]], None)],
         survivors=["line 5: return -> Constant"]),
    dict(split="train", difficulty="medium", task="applies `changes` to the stock counts in `inventory` and returns the result as a new dictionary: each change adds its (possibly negative) amount to the item's count (an item not in `inventory` starts at 0), and an item whose count ends up at 0 or below is removed.", ref="""
def update_inventory(inventory: dict[str, int], changes: dict[str, int]) -> dict[str, int]:
    out = dict(inventory)
    for item, delta in changes.items():
        out[item] = out.get(item, 0) + delta
        if out[item] <= 0:
            del out[item]
    return out
""", cases=[([{"apple": 5, "pear": 2}, {"apple": -2, "kiwi": 3}], {"apple": 3, "pear": 2, "kiwi": 3}),
            ([{"a": 2}, {"a": -2}], {}), ([{"a": 2}, {"a": -5}], {}), ([{}, {"b": 1}], {"b": 1}), ([{"c": 4}, {}], {"c": 4}),
            ([{}, {"d": -1}], {})]),
    dict(split="train", difficulty="easy", task="returns a new dictionary in which every key of `d` that is also a key of `mapping` is replaced by `mapping[key]`; other keys stay as they are and the values are unchanged (no two keys end up equal).", ref="""
def rename_keys(d: dict[str, int], mapping: dict[str, str]) -> dict[str, int]:
    return {mapping.get(k, k): v for k, v in d.items()}
""", cases=[([{"a": 1, "b": 2}, {"a": "x"}], {"x": 1, "b": 2}), ([{}, {"a": "b"}], {}), ([{"k": 5}, {}], {"k": 5}),
            ([{"p": 1, "q": 2}, {"p": "r", "q": "s"}], {"r": 1, "s": 2}), ([{"a": 1}, {"z": "y"}], {"a": 1})]),
    dict(split="train", difficulty="easy", task="returns the list `words` with every word that is a key of `dictionary` replaced by its translation `dictionary[word]`; other words stay as they are.", ref="""
def translate_words(words: list[str], dictionary: dict[str, str]) -> list[str]:
    return [dictionary.get(w, w) for w in words]
""", cases=[([["hello", "cat"], {"cat": "gato", "dog": "perro"}], ["hello", "gato"]), ([[], {"a": "b"}], []),
            ([["a", "a"], {"a": "b"}], ["b", "b"]), ([["x", "y"], {}], ["x", "y"]), ([["one", "two"], {"two": "dos", "one": "uno"}], ["uno", "dos"])]),
    dict(split="train", difficulty="hard", task="flattens the nested dictionary `d`: every value that is not a dictionary is stored under the keys leading to it joined with \".\" (so {\"a\": {\"b\": 1}} gives {\"a.b\": 1}); inner dictionaries that are empty contribute nothing, and lists are kept as values.", ref="""
def flatten_dict(d: dict) -> dict:
    out = {}

    def walk(node, prefix):
        for k, v in node.items():
            if isinstance(v, dict):
                walk(v, prefix + k + ".")
            else:
                out[prefix + k] = v

    walk(d, "")
    return out
""", cases=[([{"a": {"b": 1, "c": {"d": 2}}, "e": 3}], {"a.b": 1, "a.c.d": 2, "e": 3}), ([{}], {}), ([{"x": {}}], {}),
            ([{"k": [1, {"z": 1}]}], {"k": [1, {"z": 1}]}), ([{"a": {"b": {"c": {"d": "deep"}}}}], {"a.b.c.d": "deep"}),
            ([{"p": {"q": None}, "r": {"s": 0, "t": 1}}], {"p.q": None, "r.s": 0, "r.t": 1})]),
    dict(split="train", difficulty="easy", task="returns the entries of `d` as a list of `[key, value]` pairs sorted by key.", ref="""
def items_sorted_by_key(d: dict[str, int]) -> list[list]:
    return [[k, d[k]] for k in sorted(d)]
""", cases=[([{"b": 2, "a": 1}], [["a", 1], ["b", 2]]), ([{}], []), ([{"z": 0}], [["z", 0]]),
            ([{"c": 3, "a": 9, "b": -1}], [["a", 9], ["b", -1], ["c", 3]]), ([{"B": 1, "a": 2}], [["B", 1], ["a", 2]])]),
    dict(split="train", difficulty="easy", task="receives `scores`, which maps each name to a non-empty list of that person's scores, and returns a dictionary mapping each name to its highest score.", ref="""
def best_scores(scores: dict[str, list[int]]) -> dict[str, int]:
    return {name: max(vals) for name, vals in scores.items()}
""", cases=[([{"ann": [3, 9, 4], "bob": [7]}], {"ann": 9, "bob": 7}), ([{}], {}), ([{"c": [-3, -1]}], {"c": -1}),
            ([{"d": [5, 5]}], {"d": 5}), ([{"e": [1, 2, 3], "f": [3, 2, 1]}], {"e": 3, "f": 3})]),
    dict(split="train", difficulty="easy", task="returns a dictionary mapping each distinct string of `items` to the list of indices where it occurs, in increasing order.", ref="""
def index_positions(items: list[str]) -> dict[str, list[int]]:
    out = {}
    for i, x in enumerate(items):
        out.setdefault(x, []).append(i)
    return out
""", cases=[([["a", "b", "a"]], {"a": [0, 2], "b": [1]}), ([[]], {}), ([["x"]], {"x": [0]}), ([["p", "p", "p"]], {"p": [0, 1, 2]}),
            ([["c", "d", "e", "d"]], {"c": [0], "d": [1, 3], "e": [2]})]),
    dict(split="train", difficulty="easy", task="returns a copy of `d` to which every key of `keys` that is missing from `d` has been added with the value `default`; entries already in `d` keep their values.", ref="""
def fill_missing(d: dict[str, int], keys: list[str], default: int) -> dict[str, int]:
    out = dict(d)
    for k in keys:
        if k not in out:
            out[k] = default
    return out
""", cases=[([{"a": 1}, ["a", "b"], 0], {"a": 1, "b": 0}), ([{}, [], 5], {}), ([{}, ["x", "y"], 7], {"x": 7, "y": 7}),
            ([{"a": 3, "b": 4}, ["b"], 9], {"a": 3, "b": 4}), ([{"k": -1}, ["k", "m"], -1], {"k": -1, "m": -1})]),
    dict(split="train", difficulty="medium", task="starts from a blank grid with `rows` rows and `cols` columns, paints every rectangle of `rects`, each given as `[top, left, bottom, right]` (inclusive row and column indices inside the grid), and returns how many cells are painted at least once.", ref="""
def painted_cells(rows: int, cols: int, rects: list[list[int]]) -> int:
    grid = [[0] * cols for _ in range(rows)]
    for top, left, bottom, right in rects:
        for r in range(top, bottom + 1):
            for c in range(left, right + 1):
                grid[r][c] = 1
    return sum(sum(row) for row in grid)
""", cases=[([3, 4, [[0, 0, 1, 1], [1, 1, 2, 3]]], 9), ([2, 2, []], 0), ([1, 1, [[0, 0, 0, 0]]], 1), ([2, 3, [[0, 0, 1, 2], [0, 0, 0, 0]]], 6),
            ([4, 4, [[1, 1, 2, 2]]], 4), ([3, 3, [[0, 2, 2, 2], [2, 0, 2, 2]]], 5)]),
    dict(split="train", difficulty="medium", task="groups the lower-case words of `words` by their letters: it returns a dictionary whose keys are the words' letters in sorted order (e.g. \"tea\" gives \"aet\") and whose values are the lists of words with those letters, in their original order (repeated words are kept).", ref="""
def group_anagrams(words: list[str]) -> dict[str, list[str]]:
    out = {}
    for w in words:
        out.setdefault("".join(sorted(w)), []).append(w)
    return out
""", cases=[([["tea", "eat", "tan", "ate", "nat"]], {"aet": ["tea", "eat", "ate"], "ant": ["tan", "nat"]}), ([[]], {}),
            ([["abc"]], {"abc": ["abc"]}), ([["ab", "ba", "ab"]], {"ab": ["ab", "ba", "ab"]}), ([["z", "y"]], {"z": ["z"], "y": ["y"]})]),
    dict(split="train", difficulty="medium", task="receives `prereqs`, which maps each course to the list of courses that must be taken before it, and returns the alphabetically sorted list of the courses (keys of `prereqs`) that are not in `taken` but whose prerequisites are all in `taken` (a course without prerequisites only has to be not taken yet).", ref="""
def available_courses(prereqs: dict[str, list[str]], taken: list[str]) -> list[str]:
    return sorted(c for c, needs in prereqs.items() if c not in taken and all(n in taken for n in needs))
""", cases=[([{"b": ["a"], "c": ["a", "b"], "a": [], "d": []}, ["a"]], ["b", "d"]), ([{}, []], []), ([{"x": []}, []], ["x"]), ([{"x": ["y"]}, []], []),
            ([{"a": [], "b": ["a"]}, ["a", "b"]], []), ([{"m": ["p", "q"], "n": ["q"]}, ["q"]], ["n"])]),
    dict(split="train", difficulty="easy", task="returns the total cost of `order`, which maps item names to quantities, using the unit prices in `prices`; an item that has no price costs nothing.", ref="""
def order_total(prices: dict[str, int], order: dict[str, int]) -> int:
    return sum(prices.get(item, 0) * qty for item, qty in order.items())
""", cases=[([{"apple": 3, "pear": 5}, {"apple": 2, "pear": 1}], 11), ([{"a": 2}, {}], 0), ([{"a": 2}, {"b": 4}], 0),
            ([{"a": 4}, {"a": 3}], 12), ([{"a": 1, "b": 10}, {"b": 0, "a": 5}], 5)]),
    dict(split="train", difficulty="easy", task="returns how many whole times the recipe `recipe` (ingredient -> amount needed; all amounts positive, at least one ingredient) can be made from the stock `pantry` (ingredient -> amount available; a missing ingredient counts as 0).", ref="""
def max_batches(recipe: dict[str, int], pantry: dict[str, int]) -> int:
    return min(pantry.get(k, 0) // n for k, n in recipe.items())
""", cases=[([{"egg": 2, "milk": 1}, {"egg": 7, "milk": 5}], 3), ([{"egg": 2}, {"milk": 4}], 0), ([{"a": 1}, {"a": 0}], 0),
            ([{"a": 3, "b": 2}, {"a": 9, "b": 4, "c": 1}], 2), ([{"a": 5}, {"a": 4}], 0), ([{"a": 2, "b": 3}, {"a": 10, "b": 30}], 5),
            ([{"a": 1, "b": 1}, {"a": 3}], 0)]),
    dict(split="train", difficulty="medium", task="receives `tags`, which maps each name to a list of its (distinct) tags, and returns a dictionary mapping each tag to the alphabetically sorted list of names that have it.", ref="""
def tag_index(tags: dict[str, list[str]]) -> dict[str, list[str]]:
    out = {}
    for name in sorted(tags):
        for t in tags[name]:
            out.setdefault(t, []).append(name)
    return out
""", cases=[([{"bob": ["red", "big"], "amy": ["red"]}], {"red": ["amy", "bob"], "big": ["bob"]}), ([{}], {}), ([{"a": []}], {}),
            ([{"z": ["x"], "y": ["x"], "w": ["x"]}], {"x": ["w", "y", "z"]}), ([{"p": ["q", "r"]}], {"q": ["p"], "r": ["p"]})]),
    dict(split="train", difficulty="medium", task="returns, for every item of `needed` whose required amount is larger than the amount in `have` (0 if the item is not in `have`), how many more of it are needed; items with no shortfall are left out.", ref="""
def shopping_shortfall(needed: dict[str, int], have: dict[str, int]) -> dict[str, int]:
    return {k: n - have.get(k, 0) for k, n in needed.items() if n > have.get(k, 0)}
""", cases=[([{"egg": 3, "milk": 1, "flour": 2}, {"egg": 1, "flour": 2}], {"egg": 2, "milk": 1}), ([{}, {"a": 1}], {}),
            ([{"a": 1}, {}], {"a": 1}), ([{"a": 2}, {"a": 5}], {}), ([{"x": 0, "y": 4}, {"y": 3}], {"y": 1}), ([{"a": 5}, {"a": 5}], {})]),
    dict(split="train", difficulty="medium", task="compares two versions of a dictionary and returns `{\"added\": ..., \"removed\": ..., \"changed\": ...}`: the keys only in `new`, the keys only in `old`, and the keys in both whose values differ, each as an alphabetically sorted list.", ref="""
def dict_changes(old: dict[str, int], new: dict[str, int]) -> dict[str, list[str]]:
    return {
        "added": sorted(k for k in new if k not in old),
        "removed": sorted(k for k in old if k not in new),
        "changed": sorted(k for k in old if k in new and old[k] != new[k]),
    }
""", cases=[([{"a": 1, "b": 2, "c": 3}, {"b": 2, "c": 4, "d": 5}], {"added": ["d"], "removed": ["a"], "changed": ["c"]}),
            ([{}, {}], {"added": [], "removed": [], "changed": []}), ([{"x": 1}, {"x": 1}], {"added": [], "removed": [], "changed": []}),
            ([{}, {"b": 1, "a": 2}], {"added": ["a", "b"], "removed": [], "changed": []}),
            ([{"z": 1, "y": 2}, {}], {"added": [], "removed": ["y", "z"], "changed": []}),
            ([{"k": 1, "j": 1}, {"k": 2, "j": 1}], {"added": [], "removed": [], "changed": ["k"]})]),
    dict(split="train", difficulty="medium", task="builds a grid with `rows` rows and `cols` columns (a list of rows) full of zeros and then sets the cells listed in `entries` to their values; the keys of `entries` are \"row,col\" strings with 0-based indices, e.g. \"1,2\".", ref="""
def sparse_to_dense(entries: dict[str, int], rows: int, cols: int) -> list[list[int]]:
    grid = [[0] * cols for _ in range(rows)]
    for key, v in entries.items():
        r, c = key.split(",")
        grid[int(r)][int(c)] = v
    return grid
""", cases=[([{"0,1": 5, "1,0": 7}, 2, 3], [[0, 5, 0], [7, 0, 0]]), ([{}, 1, 1], [[0]]), ([{}, 0, 3], []),
            ([{"2,2": 1}, 3, 3], [[0, 0, 0], [0, 0, 0], [0, 0, 1]]), ([{"0,0": -4, "0,3": 2}, 1, 4], [[-4, 0, 0, 2]]),
            ([{}, 2, 2], [[0, 0], [0, 0]])]),
    dict(split="train", difficulty="easy", task="merges the list of dictionaries `dicts` into one new dictionary; when a key occurs in several of them, the value from the one latest in the list wins (an empty list gives {}).", ref="""
def merge_all(dicts: list[dict[str, int]]) -> dict[str, int]:
    out = {}
    for d in dicts:
        out.update(d)
    return out
""", cases=[([[{"a": 1, "b": 2}, {"b": 3}, {"c": 4}]], {"a": 1, "b": 3, "c": 4}), ([[]], {}), ([[{}]], {}),
            ([[{"x": 1}, {"x": 2}, {"x": 3}]], {"x": 3}), ([[{"p": 0}, {}]], {"p": 0})]),
    dict(split="train", difficulty="easy", task="returns the sum of the values of `d` whose keys start with `prefix` (0 if no key does; every key starts with the empty prefix).", ref="""
def sum_prefixed(d: dict[str, int], prefix: str) -> int:
    return sum(v for k, v in d.items() if k.startswith(prefix))
""", cases=[([{"cpu_a": 3, "cpu_b": 4, "mem": 10}, "cpu"], 7), ([{}, "x"], 0), ([{"ab": 1, "ba": 2}, "a"], 1),
            ([{"a": 1, "b": 2}, ""], 3), ([{"tea": 5, "team": 6, "at": 1}, "tea"], 11)]),
    dict(split="train", difficulty="easy", task="returns the value in `d` of the first key of `keys` that is present in `d` (even if that value is 0), or None if none of them is present.", ref="""
def first_present(d: dict[str, int], keys: list[str]) -> int | None:
    return next((d[k] for k in keys if k in d), None)
""", cases=[([{"b": 2, "c": 3}, ["a", "c", "b"]], 3), ([{"a": 0}, ["a"]], 0), ([{}, ["a"]], None), ([{"a": 1}, []], None),
            ([{"x": 5, "y": 6}, ["y", "x"]], 6)]),
    dict(split="train", difficulty="easy", task="returns the records (dictionaries) of `records` sorted by their value under the key `field`, smallest first; records with equal values keep their original order.", ref="""
def sort_by_field(records: list[dict], field: str) -> list[dict]:
    return sorted(records, key=lambda r: r[field])
""", cases=[([[{"name": "a", "age": 30}, {"name": "b", "age": 25}], "age"], [{"name": "b", "age": 25}, {"name": "a", "age": 30}]),
            ([[], "x"], []), ([[{"k": 2, "i": 0}, {"k": 1, "i": 1}, {"k": 2, "i": 2}], "k"], [{"k": 1, "i": 1}, {"k": 2, "i": 0}, {"k": 2, "i": 2}]),
            ([[{"s": "pear"}, {"s": "apple"}], "s"], [{"s": "apple"}, {"s": "pear"}]), ([[{"v": 1}], "v"], [{"v": 1}])]),
    dict(split="train", difficulty="easy", task="returns True if the dictionaries `a` and `b` are equal once the keys listed in `ignore` are left out of both, and False otherwise.", ref="""
def equal_except(a: dict[str, int], b: dict[str, int], ignore: list[str]) -> bool:
    return {k: v for k, v in a.items() if k not in ignore} == {k: v for k, v in b.items() if k not in ignore}
""", cases=[([{"id": 1, "name": 2}, {"id": 2, "name": 2}, ["id"]], True), ([{"a": 1}, {"a": 2}, []], False),
            ([{"a": 1, "b": 2}, {"a": 1}, ["b"]], True), ([{"a": 1}, {"a": 1, "b": 2}, []], False), ([{}, {}, []], True),
            ([{"a": 1, "b": 1}, {"a": 2, "b": 1}, ["b"]], False)]),
    dict(split="train", difficulty="easy", task="returns one line of text per key of `counts`, in alphabetical order of the keys: the key, a colon and a space, then as many \"*\" characters as the key's count (counts are 0 or more), so {\"b\": 2} gives [\"b: **\"].", ref="""
def histogram_bars(counts: dict[str, int]) -> list[str]:
    return [k + ": " + "*" * counts[k] for k in sorted(counts)]
""", cases=[([{"b": 2, "a": 3}], ["a: ***", "b: **"]), ([{}], []), ([{"x": 0}], ["x: "]), ([{"k": 1}], ["k: *"]),
            ([{"c": 1, "a": 1, "b": 1}], ["a: *", "b: *", "c: *"])]),
    dict(split="train", difficulty="medium", task="receives `users`, records with keys \"id\" and \"name\", and `orders`, records with keys \"user_id\" and \"item\", and returns for each order, in order, the pair `[name, item]` with the name of the user who placed it; orders whose \"user_id\" matches no user are skipped.", ref="""
def join_orders(users: list[dict], orders: list[dict]) -> list[list[str]]:
    names = {u["id"]: u["name"] for u in users}
    return [[names[o["user_id"]], o["item"]] for o in orders if o["user_id"] in names]
""", cases=[([[{"id": 1, "name": "ann"}, {"id": 2, "name": "bob"}], [{"user_id": 2, "item": "pen"}, {"user_id": 1, "item": "cup"}, {"user_id": 3, "item": "hat"}]], [["bob", "pen"], ["ann", "cup"]]),
            ([[], [{"user_id": 1, "item": "x"}]], []), ([[{"id": 1, "name": "a"}], []], []),
            ([[{"id": 5, "name": "e"}], [{"user_id": 5, "item": "a"}, {"user_id": 5, "item": "b"}]], [["e", "a"], ["e", "b"]]),
            ([[{"id": 0, "name": "z"}], [{"user_id": 0, "item": "q"}]], [["z", "q"]])]),
    dict(split="train", difficulty="medium", task="parses `s`, a list of `key=value` settings with integer values separated by \";\" (e.g. \"a=1;b=2\"), into a dictionary; empty parts (an empty `s`, a trailing \";\" or \";;\") are skipped, and a key given twice keeps its last value.", ref="""
def parse_settings(s: str) -> dict[str, int]:
    out = {}
    for part in s.split(";"):
        if part:
            key, value = part.split("=")
            out[key] = int(value)
    return out
""", cases=[(["a=1;b=2"], {"a": 1, "b": 2}), ([""], {}), (["x=5;"], {"x": 5}), (["k=1;k=3"], {"k": 3}),
            (["neg=-4;;z=0"], {"neg": -4, "z": 0})]),
    dict(split="train", difficulty="easy", task="returns the sum of the values stored under the key `field` in the dictionaries of `records`; a record without that key counts as 0.", ref="""
def sum_field(records: list[dict], field: str) -> int:
    return sum(r.get(field, 0) for r in records)
""", cases=[([[{"qty": 2}, {"qty": 5}, {"name": "x"}], "qty"], 7), ([[], "a"], 0), ([[{"a": 1}], "b"], 0),
            ([[{"n": -3}, {"n": 3}, {"n": 4}], "n"], 4), ([[{"a": 1, "b": 10}, {"b": 20}], "b"], 30)]),
    dict(split="train", difficulty="easy", task="turns the records of `records` into a table: the first row is the list `columns`, and then each record gives one row holding its values for those columns in that order (None where the record lacks the key).", ref="""
def to_rows(records: list[dict], columns: list[str]) -> list[list]:
    return [list(columns)] + [[r.get(c) for c in columns] for r in records]
""", cases=[([[{"name": "ann", "age": 30}, {"name": "bob"}], ["name", "age"]], [["name", "age"], ["ann", 30], ["bob", None]]),
            ([[], ["a"]], [["a"]]), ([[{"a": 1}], []], [[], []]), ([[{"x": 1, "y": 2}], ["y", "x"]], [["y", "x"], [2, 1]]),
            ([[{"a": 0}, {"a": 5}], ["a"]], [["a"], [0], [5]])]),
    dict(split="train", difficulty="easy", task="receives a list of people, each a dictionary with keys \"name\" and \"age\", and returns the name of the oldest one (the first of them if several share the highest age), or None if the list is empty.", ref="""
def oldest_name(people: list[dict]) -> str | None:
    return max(people, key=lambda p: p["age"])["name"] if people else None
""", cases=[([[{"name": "ann", "age": 31}, {"name": "bo", "age": 45}, {"name": "cy", "age": 20}]], "bo"), ([[]], None),
            ([[{"name": "x", "age": 5}]], "x"), ([[{"name": "p", "age": 40}, {"name": "q", "age": 40}]], "p"),
            ([[{"name": "a", "age": 1}, {"name": "b", "age": 2}]], "b")]),
    dict(split="train", difficulty="easy", task="returns a dictionary mapping each value found under the key `field` in the records of `records` (every record has that key, with a string value) to how many records have it.", ref="""
def count_by_field(records: list[dict], field: str) -> dict[str, int]:
    counts = {}
    for r in records:
        counts[r[field]] = counts.get(r[field], 0) + 1
    return counts
""", cases=[([[{"color": "red"}, {"color": "blue"}, {"color": "red"}], "color"], {"red": 2, "blue": 1}), ([[], "x"], {}),
            ([[{"t": "a", "u": "b"}], "u"], {"b": 1}), ([[{"k": "z"}, {"k": "z"}, {"k": "z"}], "k"], {"z": 3}),
            ([[{"k": "a"}, {"k": "b"}], "k"], {"a": 1, "b": 1})]),
    dict(split="train", difficulty="easy", task="returns how many records of `records` either lack the key `field` or have None stored under it.", ref="""
def count_missing(records: list[dict], field: str) -> int:
    return sum(1 for r in records if r.get(field) is None)
""", cases=[([[{"email": "a@x"}, {"email": None}, {"name": "b"}], "email"], 2), ([[], "a"], 0), ([[{"a": 0}], "a"], 0),
            ([[{}, {}], "a"], 2), ([[{"a": ""}, {"b": 1}], "a"], 1)]),
    dict(split="train", difficulty="easy", task="returns, in their original order, the records (dictionaries) of `records` that contain every key of `query` with the same value; an empty `query` matches every record.", ref="""
def filter_where(records: list[dict], query: dict) -> list[dict]:
    return [r for r in records if all(k in r and r[k] == v for k, v in query.items())]
""", cases=[([[{"a": 1, "b": 2}, {"a": 1, "b": 3}, {"a": 2}], {"a": 1}], [{"a": 1, "b": 2}, {"a": 1, "b": 3}]),
            ([[{"a": 1, "b": 2}, {"a": 1, "b": 3}], {"a": 1, "b": 3}], [{"a": 1, "b": 3}]), ([[{"a": 1}], {}], [{"a": 1}]),
            ([[{"a": None}], {"b": None}], []), ([[], {"a": 1}], []), ([[{"x": None}], {"x": None}], [{"x": None}])]),
    dict(split="train", difficulty="easy", task="receives expense records, dictionaries with keys \"category\" and \"amount\", and returns a dictionary mapping each category to the total amount spent in it.", ref="""
def total_by_category(expenses: list[dict]) -> dict[str, int]:
    totals = {}
    for e in expenses:
        totals[e["category"]] = totals.get(e["category"], 0) + e["amount"]
    return totals
""", cases=[([[{"category": "food", "amount": 12}, {"category": "bus", "amount": 3}, {"category": "food", "amount": 5}]], {"food": 17, "bus": 3}),
            ([[]], {}), ([[{"category": "x", "amount": 0}]], {"x": 0}), ([[{"category": "a", "amount": 7}]], {"a": 7}),
            ([[{"category": "a", "amount": 4}, {"category": "a", "amount": -1}]], {"a": 3})]),
    dict(split="train", difficulty="easy", task="receives student records, dictionaries with a \"score\" key, and returns new records (the input is not modified) that are copies of them with an extra key \"passed\": True if the score is at least `threshold`, otherwise False.", ref="""
def mark_passed(students: list[dict], threshold: int) -> list[dict]:
    return [{**s, "passed": s["score"] >= threshold} for s in students]
""", cases=[([[{"name": "a", "score": 70}, {"name": "b", "score": 40}], 50], [{"name": "a", "score": 70, "passed": True}, {"name": "b", "score": 40, "passed": False}]),
            ([[], 10], []), ([[{"score": 50}], 50], [{"score": 50, "passed": True}]), ([[{"score": 49}], 50], [{"score": 49, "passed": False}]),
            ([[{"score": 51}], 50], [{"score": 51, "passed": True}])]),
    dict(split="train", difficulty="medium", task="merges `a` and `b`, two lists of records that each have an \"id\" key (each id occurs at most once per list): records with the same id become one dictionary holding the keys of both, the values from `b` winning on shared keys; the result lists each id once, in the order in which the ids first appear in `a` and then in `b`.", ref="""
def merge_by_id(a: list[dict], b: list[dict]) -> list[dict]:
    merged = {}
    for r in a + b:
        merged.setdefault(r["id"], {}).update(r)
    return list(merged.values())
""", cases=[([[{"id": 1, "x": 1}, {"id": 2, "x": 2}], [{"id": 2, "x": 5, "y": 1}, {"id": 3, "y": 3}]], [{"id": 1, "x": 1}, {"id": 2, "x": 5, "y": 1}, {"id": 3, "y": 3}]),
            ([[], []], []), ([[], [{"id": 1}]], [{"id": 1}]), ([[{"id": 1, "a": 1}], [{"id": 1, "b": 2}]], [{"id": 1, "a": 1, "b": 2}]),
            ([[{"id": 2, "a": 0}], [{"id": 1, "a": 9}]], [{"id": 2, "a": 0}, {"id": 1, "a": 9}])]),
    dict(split="train", difficulty="easy", task="returns the alphabetically sorted list of every key that appears in at least one of the dictionaries of `records`, each key listed once.", ref="""
def all_fields(records: list[dict]) -> list[str]:
    return sorted({k for r in records for k in r})
""", cases=[([[{"name": "a", "age": 1}, {"name": "b", "city": "x"}]], ["age", "city", "name"]), ([[]], []), ([[{}, {}]], []),
            ([[{"b": 1}, {"a": 2}, {"b": 3}]], ["a", "b"]), ([[{"z": None}]], ["z"])]),
    dict(split="train", difficulty="easy", task="splits `records` into `[matching, others]`: the records whose value under `field` is True, then those whose value is False, each group keeping the original order.", ref="""
def partition_records(records: list[dict], field: str) -> list[list[dict]]:
    return [[r for r in records if r[field]], [r for r in records if not r[field]]]
""", cases=[([[{"id": 1, "ok": True}, {"id": 2, "ok": False}, {"id": 3, "ok": True}], "ok"], [[{"id": 1, "ok": True}, {"id": 3, "ok": True}], [{"id": 2, "ok": False}]]),
            ([[], "ok"], [[], []]), ([[{"f": False}], "f"], [[], [{"f": False}]]), ([[{"f": True}], "f"], [[{"f": True}], []]),
            ([[{"f": False, "n": 1}, {"f": False, "n": 2}], "f"], [[], [{"f": False, "n": 1}, {"f": False, "n": 2}]])]),
    dict(split="train", difficulty="easy", task="receives people records, dictionaries with keys \"name\" and \"city\", and returns a dictionary mapping each city to the list of names of the people living there, in their original order.", ref="""
def names_by_city(people: list[dict]) -> dict[str, list[str]]:
    out = {}
    for p in people:
        out.setdefault(p["city"], []).append(p["name"])
    return out
""", cases=[([[{"name": "ann", "city": "rome"}, {"name": "bo", "city": "oslo"}, {"name": "cy", "city": "rome"}]], {"rome": ["ann", "cy"], "oslo": ["bo"]}),
            ([[]], {}), ([[{"name": "x", "city": "y"}]], {"y": ["x"]}),
            ([[{"name": "b", "city": "c"}, {"name": "a", "city": "c"}]], {"c": ["b", "a"]}),
            ([[{"name": "p", "city": "q"}, {"name": "p", "city": "r"}]], {"q": ["p"], "r": ["p"]})]),
    dict(split="train", difficulty="easy", task="returns True if the square matrix `matrix` is symmetric, i.e. `matrix[i][j] == matrix[j][i]` for all `i` and `j`, and False otherwise.", ref="""
def is_symmetric(matrix: list[list[int]]) -> bool:
    n = len(matrix)
    return all(matrix[i][j] == matrix[j][i] for i in range(n) for j in range(n))
""", cases=[([[[1, 2], [2, 1]]], True), ([[[1, 2], [3, 1]]], False), ([[[5]]], True), ([[[1, 2, 3], [2, 4, 5], [3, 5, 6]]], True),
            ([[[1, 2, 3], [2, 4, 5], [0, 5, 6]]], False), ([[]], True)]),
    dict(split="train", difficulty="medium", task="returns True if every entry of the square matrix `matrix` below the main diagonal (row index greater than column index) is 0, and False otherwise.", ref="""
def is_upper_triangular(matrix: list[list[int]]) -> bool:
    n = len(matrix)
    return all(matrix[i][j] == 0 for i in range(n) for j in range(i))
""", cases=[([[[1, 2], [0, 3]]], True), ([[[1, 2], [4, 3]]], False), ([[[5]]], True), ([[[1, 0, 0], [0, 1, 0], [0, 2, 1]]], False),
            ([[[0, 0], [0, 0]]], True), ([[[1, 2, 3], [0, 4, 5], [0, 0, 6]]], True), ([[[1, 2, 3], [0, 4, 5], [7, 0, 6]]], False)]),
    dict(split="train", difficulty="medium", task="receives product records, dictionaries with keys \"name\", \"category\" and \"price\", and returns a dictionary mapping each category to the name of its cheapest product (the first one listed if several share the lowest price).", ref="""
def cheapest_per_category(products: list[dict]) -> dict[str, str]:
    best = {}
    for p in products:
        c = p["category"]
        if c not in best or p["price"] < best[c]["price"]:
            best[c] = p
    return {c: p["name"] for c, p in best.items()}
""", cases=[([[{"name": "pen", "category": "office", "price": 3}, {"name": "cup", "category": "kitchen", "price": 5},
               {"name": "clip", "category": "office", "price": 1}, {"name": "pot", "category": "kitchen", "price": 5}]], {"office": "clip", "kitchen": "cup"}),
            ([[]], {}), ([[{"name": "a", "category": "x", "price": 9}]], {"x": "a"}),
            ([[{"name": "a", "category": "x", "price": 9}, {"name": "b", "category": "x", "price": 8}]], {"x": "b"}),
            ([[{"name": "a", "category": "x", "price": 2}, {"name": "b", "category": "y", "price": 1}, {"name": "c", "category": "x", "price": 3}]], {"x": "a", "y": "b"})]),
    dict(split="train", difficulty="easy", task="returns the sum of each column of the rectangular grid `grid` (a non-empty list of equal-length rows), as a list from left to right.", ref="""
def column_sums(grid: list[list[int]]) -> list[int]:
    return [sum(col) for col in zip(*grid)]
""", cases=[([[[1, 2, 3], [4, 5, 6]]], [5, 7, 9]), ([[[7]]], [7]), ([[[1], [2], [3]]], [6]), ([[[-1, 1], [1, -1]]], [0, 0]),
            ([[[0, 5]]], [0, 5])]),
    dict(split="train", difficulty="easy", task="returns the grid `grid` (a non-empty list of equal-length rows) rotated 90 degrees clockwise, as a new list of rows.", ref="""
def rotate_clockwise(grid: list[list[int]]) -> list[list[int]]:
    return [list(row) for row in zip(*grid[::-1])]
""", cases=[([[[1, 2], [3, 4]]], [[3, 1], [4, 2]]), ([[[1, 2, 3]]], [[1], [2], [3]]), ([[[1], [2], [3]]], [[3, 2, 1]]), ([[[5]]], [[5]]),
            ([[[1, 2, 3], [4, 5, 6], [7, 8, 9]]], [[7, 4, 1], [8, 5, 2], [9, 6, 3]])]),
    dict(split="train", difficulty="medium", task="returns how many of the (up to 8) cells around row `r`, column `c` of the 0/1 grid `grid` contain 1; diagonal neighbours count, positions outside the grid are ignored and the cell itself is not counted.", ref="""
def count_live_neighbors(grid: list[list[int]], r: int, c: int) -> int:
    total = 0
    for dr in (-1, 0, 1):
        for dc in (-1, 0, 1):
            rr, cc = r + dr, c + dc
            if (dr or dc) and 0 <= rr < len(grid) and 0 <= cc < len(grid[0]):
                total += grid[rr][cc]
    return total
""", cases=[([[[1, 1, 0], [0, 1, 0], [1, 0, 1]], 1, 1], 4), ([[[1, 1], [1, 1]], 0, 0], 3), ([[[1]], 0, 0], 0),
            ([[[1, 1, 1], [1, 0, 1], [1, 1, 1]], 1, 1], 8), ([[[1, 1, 1], [1, 1, 1], [1, 1, 1]], 2, 2], 3),
            ([[[0, 1, 0], [1, 1, 1]], 0, 2], 3), ([[[1, 0], [0, 0], [0, 1]], 1, 0], 2)],
         survivors=["line 5: op -> Sub", "line 6: value -> -1"]),
    dict(split="train", difficulty="easy", task="returns True if every cell of `grid` is 0 or 1 (True for an empty grid), and False otherwise.", ref="""
def is_binary_grid(grid: list[list[int]]) -> bool:
    return all(v in (0, 1) for row in grid for v in row)
""", cases=[([[[0, 1], [1, 0]]], True), ([[[0, 2]]], False), ([[]], True), ([[[-1]]], False), ([[[1, 1]]], True), ([[[0]]], True), ([[[1], [2]]], False)]),
    dict(split="train", difficulty="hard", task="returns True if every row, every column and both diagonals of the non-empty square grid `grid` have the same sum, and False otherwise (the numbers need not be distinct).", ref="""
def is_magic_square(grid: list[list[int]]) -> bool:
    n = len(grid)
    target = sum(grid[0])
    lines = [list(row) for row in grid] + [list(col) for col in zip(*grid)]
    lines.append([grid[i][i] for i in range(n)])
    lines.append([grid[i][n - 1 - i] for i in range(n)])
    return all(sum(line) == target for line in lines)
""", cases=[([[[2, 7, 6], [9, 5, 1], [4, 3, 8]]], True), ([[[5]]], True), ([[[1, 2], [3, 4]]], False), ([[[1, 2], [2, 1]]], False),
            ([[[0, 0, 1], [0, 1, 0], [1, 0, 0]]], False), ([[[0, 0, 1], [1, 0, 0], [0, 1, 0]]], False), ([[[3, 3], [3, 3]]], True),
            ([[[1, 2, 3], [3, 1, 2], [2, 3, 1]]], False)],
         survivors=["line 3: value -> -1"]),
    dict(split="train", difficulty="hard", task="returns the next generation of Conway's Game of Life for the 0/1 grid `grid` (cells outside the grid count as dead): a live cell (1) with 2 or 3 live neighbours among its 8 neighbours stays alive, a dead cell with exactly 3 live neighbours becomes alive, and every other cell is dead (0).", ref="""
def life_step(grid: list[list[int]]) -> list[list[int]]:
    rows, cols = len(grid), len(grid[0])
    out = []
    for r in range(rows):
        row = []
        for c in range(cols):
            n = sum(grid[i][j] for i in range(max(r - 1, 0), min(r + 2, rows))
                    for j in range(max(c - 1, 0), min(c + 2, cols))) - grid[r][c]
            row.append(1 if n == 3 or (grid[r][c] == 1 and n == 2) else 0)
        out.append(row)
    return out
""", cases=[([[[0, 1, 0], [0, 1, 0], [0, 1, 0]]], [[0, 0, 0], [1, 1, 1], [0, 0, 0]]), ([[[1, 1], [1, 1]]], [[1, 1], [1, 1]]),
            ([[[1]]], [[0]]), ([[[0, 0, 0, 0], [0, 1, 1, 0], [0, 1, 0, 0], [0, 0, 0, 0]]], [[0, 0, 0, 0], [0, 1, 1, 0], [0, 1, 1, 0], [0, 0, 0, 0]]),
            ([[[1, 1, 1], [1, 1, 1], [1, 1, 1]]], [[1, 0, 1], [0, 0, 0], [1, 0, 1]]), ([[[1, 1, 1, 1, 1]]], [[0, 1, 1, 1, 0]])],
         survivors=["line 2: value -> -1"]),
    dict(split="train", difficulty="easy", task="returns True if the grids `a` and `b` have the same shape: the same number of rows, and the rows at each index have the same length (the values do not matter); otherwise False.", ref="""
def same_shape(a: list[list[int]], b: list[list[int]]) -> bool:
    return len(a) == len(b) and all(len(x) == len(y) for x, y in zip(a, b))
""", cases=[([[[1, 2], [3, 4]], [[0, 0], [9, 9]]], True), ([[[1, 2]], [[1], [2]]], False), ([[], []], True), ([[[1]], []], False),
            ([[[1, 2], [3]], [[5, 6], [7, 8]]], False), ([[[1], [2, 3]], [[4], [5, 6]]], True), ([[[1]], [[1], [2]]], False)]),
    dict(split="train", difficulty="medium", task="returns the sum of the cells on the outer edge of the non-empty rectangular grid `grid` (the first and last rows and the first and last columns), counting each cell once.", ref="""
def border_sum(grid: list[list[int]]) -> int:
    rows, cols = len(grid), len(grid[0])
    return sum(grid[r][c] for r in range(rows) for c in range(cols)
               if r == 0 or c == 0 or r == rows - 1 or c == cols - 1)
""", cases=[([[[1, 2, 3], [4, 5, 6], [7, 8, 9]]], 40), ([[[7]]], 7), ([[[1, 2, 3, 4]]], 10), ([[[1], [2], [3]]], 6),
            ([[[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12], [13, 14, 15, 16]]], 102), ([[[1, 2], [3, 4]]], 10)],
         survivors=["line 2: value -> -1"]),
    dict(split="train", difficulty="medium", task="returns `[row, col]`, the position of the largest value in the grid `grid` (non-empty, with non-empty rows); if the largest value occurs several times, return its first position in reading order (row by row, each row from left to right).", ref="""
def argmax_position(grid: list[list[int]]) -> list[int]:
    best = [0, 0]
    for r, row in enumerate(grid):
        for c, v in enumerate(row):
            if v > grid[best[0]][best[1]]:
                best = [r, c]
    return best
""", cases=[([[[1, 9, 3], [4, 5, 6]]], [0, 1]), ([[[5, 1], [5, 0]]], [0, 0]), ([[[5, 5]]], [0, 0]), ([[[5], [5]]], [0, 0]),
            ([[[1, 2], [3, 4]]], [1, 1]), ([[[-3, -1], [-2, -1]]], [0, 1]), ([[[0, 2], [7, 1]]], [1, 0])]),
    dict(split="train", difficulty="easy", task="returns the `n` x `n` identity matrix as a list of rows: 1 on the main diagonal and 0 everywhere else (`n` = 0 gives an empty list).", ref="""
def identity_matrix(n: int) -> list[list[int]]:
    return [[1 if i == j else 0 for j in range(n)] for i in range(n)]
""", cases=[([3], [[1, 0, 0], [0, 1, 0], [0, 0, 1]]), ([0], []), ([1], [[1]]), ([2], [[1, 0], [0, 1]]),
            ([4], [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]])]),
    dict(split="train", difficulty="easy", task="returns the sum of all the cells in row `r` and in column `c` of the rectangular grid `grid`, counting the cell where that row and column cross only once.", ref="""
def cross_sum(grid: list[list[int]], r: int, c: int) -> int:
    return sum(grid[r]) + sum(row[c] for row in grid) - grid[r][c]
""", cases=[([[[1, 2, 3], [4, 5, 6], [7, 8, 9]], 1, 1], 25), ([[[1, 2, 3], [4, 5, 6], [7, 8, 9]], 0, 0], 17), ([[[5]], 0, 0], 5),
            ([[[1, 2], [3, 4]], 1, 0], 8), ([[[1, 2, 3]], 0, 2], 6), ([[[1], [2], [3]], 2, 0], 6)]),
    dict(split="train", difficulty="easy", task="returns a multiplication table as a grid with `rows` rows and `cols` columns: the cell in row `i`, column `j` (both counted from 0) holds `(i + 1) * (j + 1)`.", ref="""
def times_table(rows: int, cols: int) -> list[list[int]]:
    return [[(i + 1) * (j + 1) for j in range(cols)] for i in range(rows)]
""", cases=[([3, 4], [[1, 2, 3, 4], [2, 4, 6, 8], [3, 6, 9, 12]]), ([0, 3], []), ([1, 1], [[1]]), ([2, 1], [[1], [2]]),
            ([2, 3], [[1, 2, 3], [2, 4, 6]])]),
    dict(split="train", difficulty="easy", task="turns the 0/1 grid `grid` into a list of strings, one per row, with \"#\" for each 1 and \".\" for each 0.", ref="""
def render_grid(grid: list[list[int]]) -> list[str]:
    return ["".join("#" if v == 1 else "." for v in row) for row in grid]
""", cases=[([[[1, 0, 1], [0, 1, 0]]], ["#.#", ".#."]), ([[]], []), ([[[0]]], ["."]), ([[[1, 1]]], ["##"]), ([[[], [1]]], ["", "#"])]),
    dict(split="train", difficulty="easy", task="turns `lines`, a list of strings made of digits, into a grid of integers: one row per string, one integer per character.", ref="""
def parse_digit_grid(lines: list[str]) -> list[list[int]]:
    return [[int(ch) for ch in line] for line in lines]
""", cases=[([["123", "456"]], [[1, 2, 3], [4, 5, 6]]), ([[]], []), ([["0"]], [[0]]), ([["90", "09"]], [[9, 0], [0, 9]]), ([[""]], [[]])]),
    dict(split="train", difficulty="easy", task="returns the block of `grid` with `height` rows and `width` columns whose top-left cell is at row `top`, column `left` (the block lies inside the grid), as a new list of rows.", ref="""
def submatrix(grid: list[list[int]], top: int, left: int, height: int, width: int) -> list[list[int]]:
    return [row[left:left + width] for row in grid[top:top + height]]
""", cases=[([[[1, 2, 3], [4, 5, 6], [7, 8, 9]], 1, 1, 2, 2], [[5, 6], [8, 9]]), ([[[1, 2], [3, 4]], 0, 0, 1, 1], [[1]]),
            ([[[1, 2, 3], [4, 5, 6]], 0, 1, 2, 1], [[2], [5]]), ([[[1, 2, 3], [4, 5, 6], [7, 8, 9]], 0, 0, 3, 3], [[1, 2, 3], [4, 5, 6], [7, 8, 9]]),
            ([[[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]], 2, 1, 1, 2], [[10, 11]]), ([[[1, 2], [3, 4]], 1, 0, 0, 2], [])]),
    dict(split="train", difficulty="hard", task="returns the number of cells in the region of row `r`, column `c` of `grid`: the cells with the same value as that cell that can be reached from it by moving up, down, left or right through cells with that value (the cell itself included).", ref="""
def region_size(grid: list[list[int]], r: int, c: int) -> int:
    target = grid[r][c]
    seen = {(r, c)}
    stack = [(r, c)]
    while stack:
        i, j = stack.pop()
        for ni, nj in ((i + 1, j), (i - 1, j), (i, j + 1), (i, j - 1)):
            if 0 <= ni < len(grid) and 0 <= nj < len(grid[0]) and (ni, nj) not in seen and grid[ni][nj] == target:
                seen.add((ni, nj))
                stack.append((ni, nj))
    return len(seen)
""", cases=[([[[1, 1, 0], [0, 1, 0], [0, 1, 1]], 0, 0], 5), ([[[0, 1, 0], [1, 1, 1], [0, 1, 0]], 1, 1], 5), ([[[0, 1, 0], [1, 1, 1], [0, 1, 0]], 0, 0], 1),
            ([[[1, 1, 0], [0, 1, 0], [0, 1, 1]], 1, 0], 2), ([[[1, 1, 0], [0, 1, 0], [0, 1, 1]], 2, 2], 5), ([[[5]], 0, 0], 1),
            ([[[2, 2, 2], [2, 2, 2]], 1, 2], 6), ([[[1, 1, 0], [0, 1, 0], [0, 1, 1]], 0, 2], 2)],
         survivors=["line 8: value -> -1"]),
    dict(split="train", difficulty="hard", task="moves a walker through `grid` (rows of 0 = open and 1 = wall), starting at row 0, column 0, following `moves`, a string of \"U\" (up a row), \"D\" (down a row), \"L\" (left) and \"R\" (right); a move that would leave the grid or enter a wall is skipped. It returns the final position `[row, col]`.", ref="""
def walk_grid(grid: list[list[int]], moves: str) -> list[int]:
    steps = {"U": (-1, 0), "D": (1, 0), "L": (0, -1), "R": (0, 1)}
    r, c = 0, 0
    for m in moves:
        dr, dc = steps[m]
        nr, nc = r + dr, c + dc
        if 0 <= nr < len(grid) and 0 <= nc < len(grid[0]) and grid[nr][nc] == 0:
            r, c = nr, nc
    return [r, c]
""", cases=[([[[0, 0, 0], [1, 1, 0], [0, 0, 0]], "RRDDLL"], [2, 0]), ([[[0, 0, 0], [1, 1, 0], [0, 0, 0]], "D"], [0, 0]),
            ([[[0, 0], [0, 0]], "UL"], [0, 0]), ([[[0, 0, 0]], "RRRL"], [0, 1]), ([[[0], [0], [0]], "DDDU"], [1, 0]),
            ([[[0, 0], [0, 0]], ""], [0, 0]), ([[[0, 0], [0, 0]], "DRU"], [0, 1]), ([[[0, 1], [0, 0]], "RDRUU"], [1, 1])],
         survivors=["line 7: value -> -1"]),
    dict(split="train", difficulty="hard", task="receives a tic-tac-toe `board` as 3 strings of 3 characters (\"X\", \"O\" or \".\" for empty) and returns \"X\" or \"O\" if that player has three in a row (a row, a column or a diagonal), or \"\" if nobody has; at most one player has three in a row.", ref="""
def tic_tac_toe_winner(board: list[str]) -> str:
    lines = list(board) + ["".join(col) for col in zip(*board)]
    lines.append("".join(board[i][i] for i in range(3)))
    lines.append("".join(board[i][2 - i] for i in range(3)))
    for a, b, c in lines:
        if a == b == c != ".":
            return a
    return ""
""", cases=[([["XXX", "OO.", "..."]], "X"), ([["OX.", "OX.", "O.X"]], "O"), ([["X.O", ".XO", "..X"]], "X"), ([["XXO", ".O.", "OX."]], "O"),
            ([["...", "...", "..."]], ""), ([["XOX", "XOO", "OXX"]], ""), ([["...", "X.X", "OOO"]], "O"), ([["XO.", ".O.", "XOX"]], "O")]),
    dict(split="train", difficulty="easy", task="returns the final position `[x, y]` of a walker that starts at [0, 0] and follows `moves`, a string of the letters \"U\" (y + 1), \"D\" (y - 1), \"L\" (x - 1) and \"R\" (x + 1).", ref="""
def final_position(moves: str) -> list[int]:
    return [moves.count("R") - moves.count("L"), moves.count("U") - moves.count("D")]
""", cases=[(["UURDL"], [0, 1]), ([""], [0, 0]), (["LLL"], [-3, 0]), (["DDR"], [1, -2]), (["UDLR"], [0, 0]), (["RRU"], [2, 1])]),
    dict(split="train", difficulty="easy", task="returns copies of the records of `records`, which each have an \"id\" key, in which the record whose id equals `record_id` (if there is one) has its key `field` set to `value` (added if missing); the other records are unchanged copies and `records` itself is not modified.", ref="""
def set_field_by_id(records: list[dict], record_id: int, field: str, value) -> list[dict]:
    return [{**r, field: value} if r["id"] == record_id else dict(r) for r in records]
""", cases=[([[{"id": 1, "n": "a"}, {"id": 2, "n": "b"}], 2, "n", "z"], [{"id": 1, "n": "a"}, {"id": 2, "n": "z"}]), ([[], 1, "x", 0], []),
            ([[{"id": 1}], 1, "x", 5], [{"id": 1, "x": 5}]), ([[{"id": 1}], 3, "x", 5], [{"id": 1}]),
            ([[{"id": 0, "a": 1}, {"id": 1, "a": 1}], 0, "a", None], [{"id": 0, "a": None}, {"id": 1, "a": 1}])]),
    dict(split="train", difficulty="medium", task="returns the values of `grid` read row by row, where the rows 0, 2, 4, ... are read from left to right and the rows 1, 3, 5, ... from right to left.", ref="""
def zigzag_rows(grid: list[list[int]]) -> list[int]:
    out = []
    for i, row in enumerate(grid):
        out += row if i % 2 == 0 else row[::-1]
    return out
""", cases=[([[[1, 2, 3], [4, 5, 6], [7, 8, 9]]], [1, 2, 3, 6, 5, 4, 7, 8, 9]), ([[]], []), ([[[1, 2]]], [1, 2]),
            ([[[1, 2], [3, 4], [5, 6], [7, 8]]], [1, 2, 4, 3, 5, 6, 8, 7]), ([[[1, 2, 3], [4, 5, 6]]], [1, 2, 3, 6, 5, 4])]),
    dict(split="train", difficulty="medium", task="returns the positions `[row, col]` next to row `r`, column `c` (up, down, left, right, in that order) that lie inside a grid with `rows` rows and `cols` columns.", ref="""
def orthogonal_neighbors(rows: int, cols: int, r: int, c: int) -> list[list[int]]:
    candidates = [[r - 1, c], [r + 1, c], [r, c - 1], [r, c + 1]]
    return [[i, j] for i, j in candidates if 0 <= i < rows and 0 <= j < cols]
""", cases=[([3, 3, 1, 1], [[0, 1], [2, 1], [1, 0], [1, 2]]), ([3, 3, 0, 0], [[1, 0], [0, 1]]), ([1, 1, 0, 0], []),
            ([2, 3, 1, 2], [[0, 2], [1, 1]]), ([4, 2, 2, 0], [[1, 0], [3, 0], [2, 1]]), ([3, 4, 0, 3], [[1, 3], [0, 2]])]),
    dict(split="train", difficulty="medium", task="returns the non-empty rectangular grid `grid` surrounded by a border one cell wide filled with `value`: a new row above and below and a new column on the left and on the right.", ref="""
def pad_grid(grid: list[list[int]], value: int) -> list[list[int]]:
    width = len(grid[0]) + 2
    return [[value] * width] + [[value] + row + [value] for row in grid] + [[value] * width]
""", cases=[([[[1, 2], [3, 4]], 0], [[0, 0, 0, 0], [0, 1, 2, 0], [0, 3, 4, 0], [0, 0, 0, 0]]), ([[[5]], 9], [[9, 9, 9], [9, 5, 9], [9, 9, 9]]),
            ([[[1, 2, 3]], -1], [[-1, -1, -1, -1, -1], [-1, 1, 2, 3, -1], [-1, -1, -1, -1, -1]]),
            ([[[1], [2]], 0], [[0, 0, 0], [0, 1, 0], [0, 2, 0], [0, 0, 0]]), ([[[7]], 7], [[7, 7, 7], [7, 7, 7], [7, 7, 7]])],
         survivors=["line 2: value -> -1"]),
    dict(split="train", difficulty="easy", task="returns True if all the rows of `grid` have the same length (an empty grid counts as rectangular), and False otherwise.", ref="""
def is_rectangular(grid: list[list[int]]) -> bool:
    return all(len(row) == len(grid[0]) for row in grid)
""", cases=[([[[1, 2], [3, 4]]], True), ([[[1, 2], [3]]], False), ([[]], True), ([[[], []]], True), ([[[1], [2], [3, 4]]], False), ([[[1, 2]]], True)],
         survivors=["line 2: value -> -1"]),
    dict(split="train", difficulty="medium", task="returns True if `word` can be read in the letter grid `lines` (equal-length strings, one per row) either from left to right within a row or from top to bottom within a column, and False otherwise.", ref="""
def word_in_grid(lines: list[str], word: str) -> bool:
    columns = ["".join(col) for col in zip(*lines)]
    return any(word in line for line in lines + columns)
""", cases=[([["cat", "oxo", "wnx"], "cow"], True), ([["cat", "oxo", "wnx"], "at"], True), ([["cat", "oxo", "wnx"], "tac"], False),
            ([["ab", "cd"], "bd"], True), ([["ab", "cd"], "ad"], False), ([["abc"], "abcd"], False)]),
    dict(split="train", difficulty="easy", task="returns `[rows, cols]`, the number of rows and of columns of the rectangular grid `grid`; an empty grid gives [0, 0].", ref="""
def grid_dimensions(grid: list[list[int]]) -> list[int]:
    return [len(grid), len(grid[0]) if grid else 0]
""", cases=[([[[1, 2, 3], [4, 5, 6]]], [2, 3]), ([[]], [0, 0]), ([[[7]]], [1, 1]), ([[[1], [2], [3]]], [3, 1]), ([[[1, 2, 3, 4]]], [1, 4])],
         survivors=["line 2: value -> -1"]),
    dict(split="train", difficulty="easy", task="returns how many rows of `grid` contain at least one value other than 0.", ref="""
def rows_with_nonzero(grid: list[list[int]]) -> int:
    return sum(1 for row in grid if any(v != 0 for v in row))
""", cases=[([[[0, 0], [0, 3], [1, 1]]], 2), ([[]], 0), ([[[0]]], 0), ([[[-1, 0]]], 1), ([[[], [0, 0, 0], [0, 0, 2]]], 1)]),
    dict(split="train", difficulty="medium", task="returns `[top, left, bottom, right]`, the smallest rectangle of rows `top`..`bottom` and columns `left`..`right` (inclusive) that contains every 1 of the 0/1 grid `grid`, or None if the grid has no 1.", ref="""
def bounding_box(grid: list[list[int]]) -> list[int] | None:
    cells = [(r, c) for r, row in enumerate(grid) for c, v in enumerate(row) if v == 1]
    if not cells:
        return None
    rows = [r for r, _ in cells]
    cols = [c for _, c in cells]
    return [min(rows), min(cols), max(rows), max(cols)]
""", cases=[([[[0, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 1]]], [1, 1, 2, 3]), ([[[0, 0], [0, 0]]], None), ([[[1]]], [0, 0, 0, 0]),
            ([[[0, 1], [1, 0]]], [0, 0, 1, 1]), ([[[0, 0, 0], [0, 0, 1]]], [1, 2, 1, 2])],
         survivors=["line 4: return -> Constant"]),
    dict(split="train", difficulty="medium", task="returns how many 2 x 2 blocks of neighbouring cells of the 0/1 grid `grid` consist of four 1s (blocks may overlap).", ref="""
def count_full_blocks(grid: list[list[int]]) -> int:
    return sum(1 for r in range(len(grid) - 1) for c in range(len(grid[0]) - 1)
               if grid[r][c] and grid[r + 1][c] and grid[r][c + 1] and grid[r + 1][c + 1])
""", cases=[([[[1, 1, 1], [1, 1, 1], [0, 1, 1]]], 3), ([[[1]]], 0), ([[[1, 1], [1, 1]]], 1), ([[[1, 1], [1, 0]]], 0),
            ([[[0, 0, 0], [0, 1, 1], [0, 1, 1]]], 1), ([[[1, 1, 1, 1]]], 0), ([[[1, 0, 1], [1, 1, 1]]], 0), ([[[0, 1, 1], [1, 1, 0]]], 0)],
         survivors=["line 2: value -> 1", "line 2: value -> -1"]),
    dict(split="train", difficulty="easy", task="returns the four corner values of the non-empty grid `grid` as `[top_left, top_right, bottom_left, bottom_right]` (in a 1 x 1 grid they are all the same cell).", ref="""
def corners(grid: list[list[int]]) -> list[int]:
    return [grid[0][0], grid[0][-1], grid[-1][0], grid[-1][-1]]
""", cases=[([[[1, 2, 3], [4, 5, 6], [7, 8, 9]]], [1, 3, 7, 9]), ([[[5]]], [5, 5, 5, 5]), ([[[1, 2]]], [1, 2, 1, 2]), ([[[1], [2]]], [1, 1, 2, 2]),
            ([[[1, 2], [3, 4], [5, 6]]], [1, 2, 5, 6])]),
    dict(split="train", difficulty="easy", task="returns the positions `[row, col]` of all the cells of `grid` that hold 0, in reading order (row by row, each row from left to right).", ref="""
def empty_cells(grid: list[list[int]]) -> list[list[int]]:
    return [[r, c] for r, row in enumerate(grid) for c, v in enumerate(row) if v == 0]
""", cases=[([[[1, 0], [0, 1]]], [[0, 1], [1, 0]]), ([[]], []), ([[[1, 2]]], []), ([[[0, 0, 0]]], [[0, 0], [0, 1], [0, 2]]),
            ([[[3], [0], [-1]]], [[1, 0]])]),
    dict(split="train", difficulty="medium", task="returns how many squares a chess knight standing on row `r`, column `c` (0 to 7 each) of an 8 x 8 board can move to; a knight moves two squares in one direction and one square in a perpendicular direction, and must stay on the board.", ref="""
def knight_moves(r: int, c: int) -> int:
    jumps = [(1, 2), (2, 1), (-1, 2), (-2, 1), (1, -2), (2, -1), (-1, -2), (-2, -1)]
    return sum(1 for dr, dc in jumps if 0 <= r + dr < 8 and 0 <= c + dc < 8)
""", cases=[([3, 3], 8), ([0, 0], 2), ([0, 1], 3), ([1, 1], 4), ([0, 2], 4), ([2, 2], 8), ([7, 7], 2), ([1, 0], 3), ([7, 4], 4),
            ([1, 2], 6), ([6, 6], 4), ([0, 7], 2), ([7, 0], 2), ([6, 1], 4), ([5, 7], 4), ([1, 6], 4), ([4, 6], 6), ([2, 5], 8), ([5, 2], 8)],
         survivors=["line 3: op -> Sub"]),
    dict(split="train", difficulty="medium", task="returns the final balance of a bank account that starts at 0 and goes through `ops`, strings such as \"deposit 50\" or \"withdraw 20\"; a withdrawal larger than the current balance is refused and changes nothing.", ref="""
def bank_balance(ops: list[str]) -> int:
    balance = 0
    for op in ops:
        kind, amount = op.split()
        if kind == "deposit":
            balance += int(amount)
        elif int(amount) <= balance:
            balance -= int(amount)
    return balance
""", cases=[([["deposit 50", "withdraw 20", "withdraw 40"]], 30), ([[]], 0), ([["withdraw 5"]], 0), ([["deposit 10", "withdraw 10"]], 0),
            ([["deposit 7", "deposit 3", "withdraw 4"]], 6)]),
    dict(split="train", difficulty="medium", task="returns a new 0/1 grid in which every 1 of `grid` has fallen as far down its column as it can, so each column keeps its number of 1s but has them all at the bottom.", ref="""
def apply_gravity(grid: list[list[int]]) -> list[list[int]]:
    rows, cols = len(grid), len(grid[0])
    out = [[0] * cols for _ in range(rows)]
    for c in range(cols):
        ones = sum(grid[r][c] for r in range(rows))
        for r in range(rows - ones, rows):
            out[r][c] = 1
    return out
""", cases=[([[[1, 0, 1], [0, 0, 1], [0, 1, 0]]], [[0, 0, 0], [0, 0, 1], [1, 1, 1]]), ([[[0]]], [[0]]), ([[[1]]], [[1]]),
            ([[[1, 1], [1, 0], [0, 0]]], [[0, 0], [1, 0], [1, 1]]), ([[[0, 0], [0, 0]]], [[0, 0], [0, 0]])],
         survivors=["line 2: value -> -1"]),
    dict(split="train", difficulty="hard", task="simulates a browser's history and returns the page shown at the end. The browser starts on \"home\"; `ops` are \"visit PAGE\" (go to PAGE and forget every page you could go forward to), \"back\" (return to the previous page, if there is one) and \"forward\" (redo the last back, if there is one to redo).", ref="""
def browser_history(ops: list[str]) -> str:
    back, forward = [], []
    current = "home"
    for op in ops:
        if op == "back":
            if back:
                forward.append(current)
                current = back.pop()
        elif op == "forward":
            if forward:
                back.append(current)
                current = forward.pop()
        else:
            back.append(current)
            current = op.split()[1]
            forward.clear()
    return current
""", cases=[([["visit a", "visit b", "back", "back", "forward"]], "a"), ([[]], "home"), ([["back", "forward"]], "home"),
            ([["visit a", "back", "visit b", "forward"]], "b"), ([["visit a", "visit b", "visit c", "back", "back"]], "a"),
            ([["visit x", "back", "forward", "forward"]], "x")]),
    dict(split="train", difficulty="hard", task="returns the anti-diagonals of the non-empty rectangular grid `grid`: list number `k` holds the values `grid[r][c]` with `r + c == k`, in increasing order of `r`, for `k` from 0 to rows + cols - 2.", ref="""
def anti_diagonals(grid: list[list[int]]) -> list[list[int]]:
    rows, cols = len(grid), len(grid[0])
    out = [[] for _ in range(rows + cols - 1)]
    for r in range(rows):
        for c in range(cols):
            out[r + c].append(grid[r][c])
    return out
""", cases=[([[[1, 2, 3], [4, 5, 6]]], [[1], [2, 4], [3, 5], [6]]), ([[[7]]], [[7]]), ([[[1, 2], [3, 4]]], [[1], [2, 3], [4]]),
            ([[[1], [2], [3]]], [[1], [2], [3]]), ([[[1, 2, 3], [4, 5, 6], [7, 8, 9]]], [[1], [2, 4], [3, 5, 7], [6, 8], [9]])],
         survivors=["line 2: value -> -1"]),
    dict(split="train", difficulty="hard", task="runs the key-value store commands `commands` (\"set KEY N\" stores the integer N under KEY, \"get KEY\" reads KEY, \"delete KEY\" removes KEY if present) on an empty store and returns the list of the values read by the \"get\" commands, in order, with None for a key that is not stored.", ref="""
def kv_store(commands: list[str]) -> list:
    store = {}
    out = []
    for cmd in commands:
        parts = cmd.split()
        if parts[0] == "set":
            store[parts[1]] = int(parts[2])
        elif parts[0] == "get":
            out.append(store.get(parts[1]))
        elif parts[0] == "delete":
            store.pop(parts[1], None)
    return out
""", cases=[([["set a 1", "get a", "set a 5", "get a", "delete a", "get a"]], [1, 5, None]), ([[]], []), ([["get x"]], [None]),
            ([["delete x", "set x 0", "get x"]], [0]), ([["set a 1", "set b 2", "delete a", "get b", "get a"]], [2, None])]),
    dict(split="train", difficulty="medium", task="has `n` lights numbered 0 to `n` - 1, all off at first; each number in `presses` toggles that light (off to on, on to off). Return the sorted list of the lights that are on at the end.", ref="""
def toggle_lights(n: int, presses: list[int]) -> list[int]:
    on = [False] * n
    for i in presses:
        on[i] = not on[i]
    return [i for i in range(n) if on[i]]
""", cases=[([5, [1, 3, 1, 4]], [3, 4]), ([3, []], []), ([1, [0]], [0]), ([2, [0, 0, 0]], [0]), ([4, [3, 2, 1, 0]], [0, 1, 2, 3]),
            ([0, []], [])]),
    dict(split="train", difficulty="medium", task="receives football `matches`, each `[home, home_goals, away, away_goals]`, and returns a dictionary mapping every team that played to its points: 3 for a win, 1 for a draw and 0 for a loss.", ref="""
def league_points(matches: list[list]) -> dict[str, int]:
    points = {}
    for home, hg, away, ag in matches:
        points[home] = points.get(home, 0) + (3 if hg > ag else 1 if hg == ag else 0)
        points[away] = points.get(away, 0) + (3 if ag > hg else 1 if hg == ag else 0)
    return points
""", cases=[([[["a", 2, "b", 1], ["b", 0, "c", 0], ["c", 1, "a", 3]]], {"a": 6, "b": 1, "c": 1}), ([[]], {}),
            ([[["x", 0, "y", 1]]], {"x": 0, "y": 3}), ([[["x", 2, "y", 2]]], {"x": 1, "y": 1}), ([[["p", 4, "q", 0], ["q", 1, "p", 1]]], {"p": 4, "q": 1})]),
    dict(split="train", difficulty="medium", task="processes library `events`, each `[action, person, book]` with action \"borrow\" or \"return\", and returns a dictionary mapping each book that is out at the end to the person holding it. Borrowing a book that is already out is ignored, and a return only counts when made by the person holding the book.", ref="""
def book_holders(events: list[list[str]]) -> dict[str, str]:
    holders = {}
    for action, person, book in events:
        if action == "borrow":
            if book not in holders:
                holders[book] = person
        elif holders.get(book) == person:
            del holders[book]
    return holders
""", cases=[([[["borrow", "ann", "dune"], ["borrow", "bob", "emma"], ["return", "ann", "dune"]]], {"emma": "bob"}), ([[]], {}),
            ([[["borrow", "ann", "x"], ["borrow", "bob", "x"]]], {"x": "ann"}), ([[["borrow", "ann", "x"], ["return", "bob", "x"]]], {"x": "ann"}),
            ([[["return", "ann", "x"]]], {}), ([[["borrow", "a", "x"], ["return", "a", "x"], ["borrow", "b", "x"]]], {"x": "b"})]),
    dict(split="train", difficulty="medium", task="flattens the list `items` completely: it returns every element that is not a list, at any depth of nesting, in left-to-right order.", ref="""
def deep_flatten(items: list) -> list:
    out = []
    for v in items:
        if isinstance(v, list):
            out.extend(deep_flatten(v))
        else:
            out.append(v)
    return out
""", cases=[([[1, [2, [3, [4]]], 5]], [1, 2, 3, 4, 5]), ([[]], []), ([[[], [[]]]], []), ([["a", ["b"]]], ["a", "b"]), ([[[1, 2], 3]], [1, 2, 3])]),
    dict(split="train", difficulty="medium", task="returns the total cost of selling `qty` units from stock bought in `lots`, each `[units, unit_cost]`, using the oldest lots first (first in, first out); `qty` is never more than the units available.", ref="""
def fifo_sale_cost(lots: list[list[int]], qty: int) -> int:
    cost = 0
    for units, unit_cost in lots:
        take = min(units, qty)
        cost += take * unit_cost
        qty -= take
    return cost
""", cases=[([[[5, 10], [5, 20]], 7], 90), ([[], 0], 0), ([[[3, 4]], 3], 12), ([[[2, 1], [2, 5], [2, 9]], 2], 2), ([[[1, 3], [4, 2]], 0], 0),
            ([[[2, 1], [2, 5], [2, 9]], 5], 21)]),
    dict(split="train", difficulty="medium", task="applies `transfers`, each `[source, target, amount]`, in order to the account balances `balances` and returns the new balances as a new dictionary; a transfer is skipped when the source's balance at that moment is smaller than the amount. All accounts are keys of `balances`.", ref="""
def apply_transfers(balances: dict[str, int], transfers: list[list]) -> dict[str, int]:
    out = dict(balances)
    for source, target, amount in transfers:
        if out[source] >= amount:
            out[source] -= amount
            out[target] += amount
    return out
""", cases=[([{"a": 10, "b": 0}, [["a", "b", 4], ["b", "a", 5], ["a", "b", 6]]], {"a": 0, "b": 10}), ([{"x": 1}, []], {"x": 1}),
            ([{"a": 3, "b": 3}, [["a", "b", 3]]], {"a": 0, "b": 6}), ([{"a": 2, "b": 0}, [["a", "b", 3]]], {"a": 2, "b": 0}),
            ([{"a": 5, "b": 0, "c": 0}, [["a", "b", 5], ["b", "c", 2]]], {"a": 0, "b": 3, "c": 2})]),
    dict(split="train", difficulty="easy", task="receives `categories`, which maps category names to lists of items, and returns the name of the category whose list contains `item` (`item` is in at most one list), or None if no list contains it.", ref="""
def find_category(item: str, categories: dict[str, list[str]]) -> str | None:
    return next((name for name, items in categories.items() if item in items), None)
""", cases=[(["apple", {"fruit": ["apple", "pear"], "veg": ["leek"]}], "fruit"), (["leek", {"fruit": ["apple", "pear"], "veg": ["leek"]}], "veg"),
            (["rock", {"fruit": ["apple", "pear"], "veg": ["leek"]}], None), (["x", {}], None), (["b", {"e": [], "f": ["a", "b"]}], "f")]),
    dict(split="train", difficulty="hard", task="simulates a least-recently-used cache holding at most `capacity` (at least 1) keys and returns the list of keys it evicts, in order, while serving `accesses`: an access to a cached key makes it the most recently used; an access to another key adds it, first evicting the least recently used key if the cache is full.", ref="""
def lru_evictions(capacity: int, accesses: list[str]) -> list[str]:
    cache, evicted = [], []
    for key in accesses:
        if key in cache:
            cache.remove(key)
        elif len(cache) == capacity:
            evicted.append(cache.pop(0))
        cache.append(key)
    return evicted
""", cases=[([2, ["a", "b", "a", "c", "b"]], ["b", "a"]), ([1, []], []), ([1, ["a", "a", "b"]], ["a"]), ([3, ["a", "b", "c"]], []),
            ([2, ["a", "b", "c", "d"]], ["a", "b"]), ([3, ["a", "b", "c", "a", "d", "e"]], ["b", "c"])]),
    dict(split="train", difficulty="medium", task="receives `events`, each `[key, amount]`, and returns a list with, for each event in turn, the running total of all the amounts seen so far for that event's key.", ref="""
def running_key_totals(events: list[list]) -> list[int]:
    totals = {}
    out = []
    for key, amount in events:
        totals[key] = totals.get(key, 0) + amount
        out.append(totals[key])
    return out
""", cases=[([[["a", 2], ["b", 5], ["a", 3], ["b", -1]]], [2, 5, 5, 4]), ([[]], []), ([[["x", 7]]], [7]),
            ([[["k", 1], ["k", 1], ["k", 1]]], [1, 2, 3]), ([[["p", 0], ["q", -2]]], [0, -2])]),
    dict(split="train", difficulty="medium", task="receives `parent`, which maps each node to its parent (a node that is not a key is a root), and returns the list of ancestors of `node`: its parent, then its parent's parent, and so on up to the root.", ref="""
def ancestors(parent: dict[str, str], node: str) -> list[str]:
    out = []
    while node in parent:
        node = parent[node]
        out.append(node)
    return out
""", cases=[([{"c": "b", "b": "a", "d": "a"}, "c"], ["b", "a"]), ([{}, "x"], []), ([{"b": "a"}, "a"], []), ([{"b": "a"}, "b"], ["a"]),
            ([{"z": "y", "y": "x", "x": "w"}, "z"], ["y", "x", "w"])]),
    dict(split="train", difficulty="medium", task="returns the nesting depth of `x`: a value that is not a list has depth 0, and a list has depth 1 plus the largest depth of its elements (so [] has depth 1 and [1, [2]] has depth 2).", ref="""
def list_depth(x) -> int:
    if not isinstance(x, list):
        return 0
    return 1 + max((list_depth(v) for v in x), default=0)
""", cases=[([[1, [2, [3]], 4]], 3), ([5], 0), ([[]], 1), ([[[]]], 2), ([[1, 2]], 1), ([[[1], [[2]], 3]], 3)]),
    dict(split="train", difficulty="medium", task="receives a tree `node`, a dictionary with an integer \"value\" and a list \"children\" of nodes of the same form, and returns the sum of the values of all the nodes of the tree.", ref="""
def tree_sum(node: dict) -> int:
    return node["value"] + sum(tree_sum(child) for child in node["children"])
""", cases=[([{"value": 1, "children": [{"value": 2, "children": []}, {"value": 3, "children": [{"value": 4, "children": []}]}]}], 10),
            ([{"value": 5, "children": []}], 5), ([{"value": -2, "children": [{"value": 2, "children": []}]}], 0),
            ([{"value": 0, "children": [{"value": 1, "children": [{"value": 1, "children": []}]}]}], 2),
            ([{"value": 3, "children": [{"value": 7, "children": []}, {"value": -1, "children": []}]}], 9)]),
    dict(split="train", difficulty="easy", task="receives `pairs`, a list of two-element lists, and returns a new list with the two elements of every pair swapped.", ref="""
def flip_pairs(pairs: list[list]) -> list[list]:
    return [[b, a] for a, b in pairs]
""", cases=[([[[1, "a"], [2, "b"]]], [["a", 1], ["b", 2]]), ([[]], []), ([[[3, 3]]], [[3, 3]]), ([[[0, None]]], [[None, 0]]), ([[["x", "y"]]], [["y", "x"]])]),
    dict(split="train", difficulty="medium", task="builds the adjacency lists of an undirected graph from `edges`, a list of `[a, b]` pairs of node names (no repeated edges, no edge from a node to itself): it returns a dictionary mapping every node that appears in an edge to the alphabetically sorted list of its neighbours.", ref="""
def build_adjacency(edges: list[list[str]]) -> dict[str, list[str]]:
    adj = {}
    for a, b in edges:
        adj.setdefault(a, []).append(b)
        adj.setdefault(b, []).append(a)
    return {node: sorted(ns) for node, ns in adj.items()}
""", cases=[([[["a", "b"], ["a", "c"], ["c", "b"]]], {"a": ["b", "c"], "b": ["a", "c"], "c": ["a", "b"]}), ([[]], {}),
            ([[["x", "y"]]], {"x": ["y"], "y": ["x"]}), ([[["d", "a"], ["d", "b"]]], {"d": ["a", "b"], "a": ["d"], "b": ["d"]}),
            ([[["p", "q"], ["r", "s"]]], {"p": ["q"], "q": ["p"], "r": ["s"], "s": ["r"]})]),
    dict(split="train", difficulty="easy", task="returns the inner lists of `lists` that are not empty, in their original order.", ref="""
def remove_empty(lists: list[list[int]]) -> list[list[int]]:
    return [lst for lst in lists if lst]
""", cases=[([[[1], [], [2, 3], []]], [[1], [2, 3]]), ([[]], []), ([[[], []]], []), ([[[0]]], [[0]]), ([[[4, 5]]], [[4, 5]])]),
    dict(split="train", difficulty="hard", task="evaluates `expr`, which is either an integer or a list `[op, left, right]` where `op` is \"+\", \"-\" or \"*\" and `left` and `right` are expressions of the same form, and returns its integer value.", ref="""
def eval_nested(expr) -> int:
    if isinstance(expr, int):
        return expr
    op, left, right = expr
    a, b = eval_nested(left), eval_nested(right)
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    return a * b
""", cases=[([["+", 1, ["*", 2, 3]]], 7), ([5], 5), ([["-", 10, 4]], 6), ([["*", ["-", 1, 3], ["+", 2, 2]]], -8), ([["-", ["-", 9, 5], 1]], 3),
            ([["+", -2, 0]], -2)]),
    dict(split="train", difficulty="hard", task="receives a directed graph `graph` mapping each node to the list of nodes it has edges to (a node missing from `graph` has no edges) and returns the alphabetically sorted list of all nodes reachable from `start` by following edges, `start` included.", ref="""
def reachable(graph: dict[str, list[str]], start: str) -> list[str]:
    seen = {start}
    stack = [start]
    while stack:
        node = stack.pop()
        for nxt in graph.get(node, []):
            if nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    return sorted(seen)
""", cases=[([{"a": ["b", "c"], "b": ["d"], "e": ["a"]}, "a"], ["a", "b", "c", "d"]), ([{}, "x"], ["x"]), ([{"a": ["b"], "b": ["a"]}, "b"], ["a", "b"]),
            ([{"a": ["b"], "b": ["c"], "c": ["a"], "d": ["a"]}, "c"], ["a", "b", "c"]), ([{"x": ["y"]}, "y"], ["y"])]),
    dict(split="train", difficulty="easy", task="receives `table`, which maps each row name to a dictionary of column name -> value, and returns a dictionary mapping each row name that has the column `column` to its value in that column.", ref="""
def table_column(table: dict[str, dict[str, int]], column: str) -> dict[str, int]:
    return {row: cols[column] for row, cols in table.items() if column in cols}
""", cases=[([{"r1": {"a": 1, "b": 2}, "r2": {"a": 3}}, "b"], {"r1": 2}), ([{}, "a"], {}), ([{"x": {}}, "a"], {}),
            ([{"p": {"c": 0}, "q": {"c": -1}}, "c"], {"p": 0, "q": -1}), ([{"r1": {"a": 1, "b": 2}, "r2": {"a": 3}}, "a"], {"r1": 1, "r2": 3})]),
    dict(split="train", difficulty="easy", task="returns how many of the inner lists of `lists` contain the value `x`.", ref="""
def count_lists_containing(lists: list[list[int]], x: int) -> int:
    return sum(1 for lst in lists if x in lst)
""", cases=[([[[1, 2], [2, 2], [3]], 2], 2), ([[], 1], 0), ([[[]], 0], 0), ([[[5], [5, 5]], 5], 2), ([[[1], [2]], 3], 0)]),
    dict(split="train", difficulty="easy", task="returns a list in which every item of `items` is wrapped in a list of its own, so [1, 2] gives [[1], [2]].", ref="""
def wrap_items(items: list) -> list[list]:
    return [[x] for x in items]
""", cases=[([[1, 2, 3]], [[1], [2], [3]]), ([[]], []), ([["a"]], [["a"]]), ([[[1]]], [[[1]]]), ([[None, 0]], [[None], [0]])]),
    dict(split="train", difficulty="easy", task="returns the first element of each inner list of `lists`, in order, skipping the inner lists that are empty.", ref="""
def first_of_each(lists: list[list[int]]) -> list[int]:
    return [lst[0] for lst in lists if lst]
""", cases=[([[[1, 2], [], [3], [4, 5, 6]]], [1, 3, 4]), ([[]], []), ([[[]]], []), ([[[0, 9]]], [0]), ([[[7], [8]]], [7, 8])]),
    dict(split="train", difficulty="easy", task="returns a dictionary mapping each key found in both `a` and `b` to the pair `[a[key], b[key]]`; keys found in only one of them are left out.", ref="""
def zip_dicts(a: dict[str, int], b: dict[str, int]) -> dict[str, list[int]]:
    return {k: [a[k], b[k]] for k in a if k in b}
""", cases=[([{"x": 1, "y": 2}, {"y": 5, "z": 6}], {"y": [2, 5]}), ([{}, {"a": 1}], {}), ([{"a": 1}, {}], {}),
            ([{"a": 1, "b": 2}, {"b": 3, "a": 4}], {"a": [1, 4], "b": [2, 3]}), ([{"k": 0}, {"k": 0}], {"k": [0, 0]})]),
    dict(split="train", difficulty="easy", task="returns a copy of `counts` in which the count of `key` is one higher (a key that is not in `counts` gets the count 1); `counts` itself is not modified.", ref="""
def bump_count(counts: dict[str, int], key: str) -> dict[str, int]:
    out = dict(counts)
    out[key] = out.get(key, 0) + 1
    return out
""", cases=[([{"a": 1, "b": 4}, "a"], {"a": 2, "b": 4}), ([{}, "x"], {"x": 1}), ([{"a": 1}, "b"], {"a": 1, "b": 1}), ([{"k": 0}, "k"], {"k": 1}),
            ([{"a": 5, "b": 2}, "b"], {"a": 5, "b": 3})]),
    dict(split="train", difficulty="easy", task="returns the value of `key` in `primary` if `key` is there, otherwise its value in `fallback` if it is there, otherwise None (a stored value of 0 still counts as present).", ref="""
def lookup_either(primary: dict[str, int], fallback: dict[str, int], key: str) -> int | None:
    if key in primary:
        return primary[key]
    return fallback.get(key)
""", cases=[([{"a": 1}, {"a": 2, "b": 3}, "a"], 1), ([{"a": 1}, {"a": 2, "b": 3}, "b"], 3), ([{}, {}, "z"], None), ([{"a": 0}, {"a": 5}, "a"], 0),
            ([{}, {"q": 0}, "q"], 0), ([{"x": 1}, {}, "y"], None)]),
    dict(split="train", difficulty="easy", task="receives `d`, which maps names to lists, and returns the total number of items in all those lists together (0 for an empty dictionary).", ref="""
def total_list_items(d: dict[str, list]) -> int:
    return sum(len(v) for v in d.values())
""", cases=[([{"a": [1, 2], "b": [3]}], 3), ([{}], 0), ([{"x": []}], 0), ([{"p": ["q", "r", "s"], "t": [], "u": [None]}], 4), ([{"k": [[1, 2]]}], 1)]),
    dict(split="train", difficulty="easy", task="returns the new prices after taking each item's discount in `discounts` (item -> amount off) off its price in `prices`; items without a discount keep their price, and no price goes below 0.", ref="""
def apply_discounts(prices: dict[str, int], discounts: dict[str, int]) -> dict[str, int]:
    return {item: max(p - discounts.get(item, 0), 0) for item, p in prices.items()}
""", cases=[([{"tea": 5, "cake": 8}, {"cake": 3}], {"tea": 5, "cake": 5}), ([{}, {"a": 1}], {}), ([{"a": 2}, {"a": 5}], {"a": 0}),
            ([{"a": 4}, {"b": 1}], {"a": 4}), ([{"a": 3}, {"a": 3}], {"a": 0}), ([{"a": 10, "b": 1}, {"a": 1, "b": 1}], {"a": 9, "b": 0})]),
    dict(split="train", difficulty="easy", task="returns a copy of `grid` in which the cell at row `r`, column `c` holds `value`; `grid` itself is not modified.", ref="""
def with_cell(grid: list[list[int]], r: int, c: int, value: int) -> list[list[int]]:
    out = [list(row) for row in grid]
    out[r][c] = value
    return out
""", cases=[([[[1, 2], [3, 4]], 1, 0, 9], [[1, 2], [9, 4]]), ([[[0]], 0, 0, 5], [[5]]), ([[[1, 2, 3]], 0, 2, 0], [[1, 2, 0]]),
            ([[[1], [2], [3]], 2, 0, 7], [[1], [2], [7]]), ([[[4, 4], [4, 4]], 0, 1, 4], [[4, 4], [4, 4]])]),
    dict(split="train", difficulty="medium", task="simulates a car park with spots numbered 0 to `n` - 1. `events` are \"park CAR\" (the car takes the lowest-numbered free spot; nothing happens if the car park is full or the car is already parked) and \"leave CAR\" (the car frees its spot, if it is parked). Return a dictionary mapping each car still parked to its spot.", ref="""
def parking_spots(n: int, events: list[str]) -> dict[str, int]:
    parked = {}
    for event in events:
        action, car = event.split()
        if action == "leave":
            parked.pop(car, None)
        elif car not in parked:
            free = [s for s in range(n) if s not in parked.values()]
            if free:
                parked[car] = free[0]
    return parked
""", cases=[([2, ["park a", "park b", "leave a", "park c"]], {"b": 1, "c": 0}), ([1, ["park a", "park b"]], {"a": 0}), ([3, []], {}),
            ([2, ["park a", "park a"]], {"a": 0}), ([2, ["leave x", "park y"]], {"y": 0}),
            ([3, ["park a", "park b", "park c", "leave b", "leave a", "park d"]], {"c": 2, "d": 0}), ([0, ["park a"]], {})]),
    dict(split="train", difficulty="easy", task="returns True if row `r`, column `c` is a cell of `grid`, whose rows may have different lengths (indices are 0-based and a negative index is outside), and False otherwise.", ref="""
def in_bounds(grid: list[list[int]], r: int, c: int) -> bool:
    return 0 <= r < len(grid) and 0 <= c < len(grid[r])
""", cases=[([[[1, 2], [3]], 0, 1], True), ([[[1, 2], [3]], 1, 1], False), ([[[1, 2], [3]], 2, 0], False), ([[[1, 2], [3]], -1, 0], False),
            ([[[1, 2], [3]], 0, -1], False), ([[[1, 2], [3]], 1, 0], True), ([[[1, 2], [3]], 0, 2], False), ([[], 0, 0], False)]),
    dict(split="train", difficulty="easy", task="returns a dictionary mapping the value under the key `field` (a string) of each record of `records` to that record; when several records share a value, the last of them is kept.", ref="""
def index_by(records: list[dict], field: str) -> dict:
    return {r[field]: r for r in records}
""", cases=[([[{"id": "a", "n": 1}, {"id": "b", "n": 2}], "id"], {"a": {"id": "a", "n": 1}, "b": {"id": "b", "n": 2}}), ([[], "id"], {}),
            ([[{"k": "x", "v": 1}, {"k": "x", "v": 2}], "k"], {"x": {"k": "x", "v": 2}}), ([[{"name": "z"}], "name"], {"z": {"name": "z"}}),
            ([[{"c": "p", "d": "q"}], "d"], {"q": {"c": "p", "d": "q"}})]),
    dict(split="train", difficulty="easy", task="returns a dictionary describing the non-zero cells of `grid`: for every cell that is not 0 it maps the key \"row,col\" (0-based indices, e.g. \"1,2\") to the cell's value.", ref="""
def dense_to_sparse(grid: list[list[int]]) -> dict[str, int]:
    return {f"{r},{c}": v for r, row in enumerate(grid) for c, v in enumerate(row) if v != 0}
""", cases=[([[[0, 5, 0], [7, 0, 0]]], {"0,1": 5, "1,0": 7}), ([[]], {}), ([[[0, 0]]], {}), ([[[-1]]], {"0,0": -1}),
            ([[[1, 2], [0, 3]]], {"0,0": 1, "0,1": 2, "1,1": 3})]),
    dict(split="train", difficulty="medium", task="stores `value` in the nested dictionary `d` under the non-empty list of keys `path` (the path [\"a\", \"b\"] sets d[\"a\"][\"b\"]), creating an empty dictionary for every missing key on the way and replacing any value on the way that is not a dictionary; it returns `d`.", ref="""
def nested_set(d: dict, path: list[str], value) -> dict:
    cur = d
    for key in path[:-1]:
        if not isinstance(cur.get(key), dict):
            cur[key] = {}
        cur = cur[key]
    cur[path[-1]] = value
    return d
""", cases=[([{}, ["a", "b"], 1], {"a": {"b": 1}}), ([{"a": {"x": 2}}, ["a", "b"], 3], {"a": {"x": 2, "b": 3}}), ([{"a": 5}, ["a", "b"], 0], {"a": {"b": 0}}),
            ([{"k": 1}, ["k"], 9], {"k": 9}), ([{}, ["p", "q", "r"], "v"], {"p": {"q": {"r": "v"}}}),
            ([{"a": {"b": {"c": 1}}}, ["a", "b", "d"], 2], {"a": {"b": {"c": 1, "d": 2}}})]),
]
