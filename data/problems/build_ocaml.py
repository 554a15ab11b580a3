"""Build `ocaml.jsonl`, the OCaml problem set written for this project, from the literals below.

    python data/problems/build_ocaml.py            # rewrite ocaml.jsonl (needs ocamlc)
    python data/problems/build_ocaml.py --check    # fail if ocaml.jsonl is out of date
    python data/problems/build_ocaml.py --out DIR  # write it to DIR instead

Every problem is (name, type, task text, reference, example, more inputs, wrong). Expected
outputs are computed by running the reference through the OCaml judge's own harness (so they
are exactly what a correct answer prints); the example's expected value is also written by
hand, and the two must agree (the double check). `wrong` is a small edit (old -> new) of the
reference that tests/test_ocaml_problems.py proves fails at least one test, with a constant
answer of the right type.

Ids are `ml-<tier>-NNN` in the order written here: append new problems at the end of a tier.
Every fifth problem of a tier (NNN % 5 == 0) is held out.
"""
from __future__ import annotations

import json
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

OUT = Path(__file__).with_name("ocaml.jsonl")
INSTRUCTION = ("Answer with one ```ocaml code block holding the function and any helpers it needs "
               "(no main program, no reading input).")


def P(name: str, ty: str, task: str, ref: str, example: tuple[list, object], inputs: list[list],
      wrong: tuple[str, str]) -> dict:
    return {"name": name, "type": ty, "task": task, "ref": ref.strip("\n") + "\n",
            "example": example, "inputs": inputs, "wrong": wrong}


EASY = [
    P("sum_list", "int list -> int", "returns the sum of the integers in `xs` (0 for the empty list).", r"""
(* Sum of a list, tail-recursive. *)
let sum_list xs =
  let rec go acc = function
    | [] -> acc
    | x :: rest -> go (acc + x) rest
  in
  go 0 xs
(* end of sum_list *)
""", ([[1, 2, 3]], 6), [[[]], [[-5, 5, 10]], [[100]], [[-1, -2, -3]]], ("acc + x", "acc + 1")),

    P("count_positive", "int list -> int", "returns how many integers in `xs` are strictly positive.", r"""
(* Count the elements greater than zero. *)
let count_positive xs =
  List.fold_left
    (fun acc x ->
      if x > 0 then acc + 1
      else acc)
    0
    xs
""", ([[1, -2, 3, 0]], 2), [[[]], [[-1, -2]], [[5, 5, 5, 5]], [[0, 0, 1]]], ("x > 0", "x >= 0")),

    P("max_list", "int list -> int option", "returns the largest integer of `xs`, or `None` for the empty list.", r"""
(* Largest element, if any. *)
let max_list xs =
  match xs with
  | [] -> None
  | x :: rest ->
    let best =
      List.fold_left (fun m y -> if y > m then y else m) x rest
    in
    Some best
""", ([[3, 9, 2]], 9), [[[]], [[-4, -7]], [[5]], [[1, 2, 3, 10, 4]]], ("y > m", "y < m")),

    P("reverse_list", "int list -> int list", "returns the elements of `xs` in reverse order.", r"""
(* Reverse by pushing onto an accumulator. *)
let reverse_list xs =
  let rec go acc l =
    match l with
    | [] -> acc
    | x :: rest -> go (x :: acc) rest
  in
  go [] xs
(* end *)
""", ([[1, 2, 3]], [3, 2, 1]), [[[]], [[7]], [[5, 4, 9, 1]], [[2, 2, 3]]], ("go [] xs", "go [] (List.rev xs)")),

    P("is_palindrome", "string -> bool", "returns `true` when the string `s` reads the same backwards (case-sensitive).", r"""
(* Compare characters from both ends. *)
let is_palindrome s =
  let n = String.length s in
  let rec check i =
    if i >= n / 2 then true
    else if s.[i] <> s.[n - 1 - i] then false
    else check (i + 1)
  in
  check 0
""", (["racecar"], True), [[""], ["ab"], ["abba"], ["Aa"], ["x"]], ("s.[n - 1 - i]", "s.[n - 1]")),

    P("factorial", "int -> int", "returns the factorial of the non-negative integer `n` (the factorial of 0 is 1).", r"""
(* n! by a loop. *)
let factorial n =
  let result = ref 1 in
  for k = 2 to n do
    result := !result * k
  done;
  !result
(* end of factorial *)
""", ([5], 120), [[0], [1], [10], [3]], ("for k = 2 to n do", "for k = 2 to n - 1 do")),

    P("fib", "int -> int", "returns the `n`-th Fibonacci number, with `fib 0 = 0` and `fib 1 = 1`.", r"""
(* Iterative Fibonacci. *)
let fib n =
  let rec go a b k =
    if k = 0 then a
    else go b (a + b) (k - 1)
  in
  go 0 1 n
(* fib 10 = 55 *)
""", ([10], 55), [[0], [1], [2], [20], [30]], ("go 0 1 n", "go 1 1 n")),

    P("count_char", "string -> char -> int", "returns how many times the character `c` occurs in `s`.", r"""
(* Count occurrences of c. *)
let count_char s c =
  let n = ref 0 in
  String.iter
    (fun ch ->
      if ch = c then incr n)
    s;
  !n
""", (["banana", "a"], 3), [["", "a"], ["hello", "l"], ["xyz", "a"], ["aaaa", "a"]], ("if ch = c", "if ch <> c")),

    P("last_element", "int list -> int option", "returns the last element of `xs`, or `None` for the empty list.", r"""
(* Walk to the end. *)
let rec last_element xs =
  match xs with
  | [] -> None
  | [x] -> Some x
  | _ :: rest ->
    last_element rest
(* end *)
""", ([[1, 2, 3]], 3), [[[]], [[9]], [[4, -1]], [[0, 0, 7, 5]]], ("| [x] -> Some x", "| x :: _ :: [] -> Some x")),

    P("sum_squares", "int -> int", "returns 1*1 + 2*2 + ... + n*n for `n` >= 0 (0 when `n` is 0).", r"""
(* Sum of the first n squares. *)
let sum_squares n =
  let total = ref 0 in
  for i = 1 to n do
    total := !total + (i * i)
  done;
  !total
(* end *)
""", ([3], 14), [[0], [1], [10], [5]], ("(i * i)", "(i * 2)")),

    P("repeat_string", "string -> int -> string", "returns `s` repeated `n` times (the empty string when `n` <= 0).", r"""
(* Concatenate n copies of s. *)
let repeat_string s n =
  let buf = Buffer.create 16 in
  for _ = 1 to n do
    Buffer.add_string buf s
  done;
  Buffer.contents buf
(* end *)
""", (["ab", 3], "ababab"), [["x", 0], ["", 5], ["hi", 1], ["z", -2]], ("for _ = 1 to n do", "for _ = 0 to n do")),

    P("average", "float list -> float", "returns the arithmetic mean of `xs`, or 0.0 for the empty list.", r"""
(* Mean of a float list. *)
let average xs =
  match xs with
  | [] -> 0.0
  | _ ->
    let total = List.fold_left ( +. ) 0.0 xs in
    let count = float_of_int (List.length xs) in
    total /. count
(* end *)
""", ([[1.0, 2.0, 3.0, 4.0]], 2.5), [[[]], [[5.0]], [[-1.0, 1.0]], [[0.5, 0.25]]], ("total /. count", "total /. (count +. 1.0)")),

    P("is_prime", "int -> bool", "returns `true` when `n` is a prime number (numbers below 2 are not prime).", r"""
(* Trial division up to the square root. *)
let is_prime n =
  if n < 2 then false
  else begin
    let rec check d =
      d * d > n || (n mod d <> 0 && check (d + 1))
    in
    check 2
  end
""", ([7], True), [[1], [2], [9], [97], [100], [-3]], ("d * d > n", "d * d >= n")),

    P("gcd", "int -> int -> int", "returns the greatest common divisor of the non-negative integers `a` and `b` (`gcd 0 0 = 0`).", r"""
(* Euclid's algorithm. *)
let rec gcd a b =
  if b = 0 then
    a
  else
    gcd b (a mod b)
(* gcd 12 18 = 6 *)
(* end *)
""", ([12, 18], 6), [[0, 0], [7, 0], [0, 9], [17, 5], [100, 75]], ("if b = 0 then", "if b <= 1 then")),

    P("count_vowels", "string -> int", "returns how many vowels (a, e, i, o, u, upper or lower case) the string `s` contains.", r"""
(* Count vowels, case-insensitive. *)
let count_vowels s =
  let is_vowel c =
    match Char.lowercase_ascii c with
    | 'a' | 'e' | 'i' | 'o' | 'u' -> true
    | _ -> false
  in
  String.fold_left (fun n c -> if is_vowel c then n + 1 else n) 0 s
""", (["hello"], 2), [["AEIOU"], ["rhythm"], [""], ["Programming Is Fun"]], ("| 'a' | 'e' | 'i' | 'o' | 'u' -> true", "| 'a' | 'e' | 'i' | 'o' -> true")),

    P("list_length", "int list -> int", "returns the number of elements of `xs`, without using `List.length`.", r"""
(* Count elements with an accumulator. *)
let list_length xs =
  let rec go n l =
    match l with
    | [] -> n
    | _ :: rest -> go (n + 1) rest
  in
  go 0 xs
(* end *)
""", ([[4, 5, 6]], 3), [[[]], [[1]], [[1, 1, 1, 1, 1, 1]], [[0, 0]]], ("go (n + 1) rest", "go (n + 2) rest")),

    P("nth_or_default", "int list -> int -> int -> int", "returns the element at index `i` (from 0) of `xs`, or `d` when `i` is out of range.", r"""
(* Safe indexing. *)
let rec nth_or_default xs i d =
  match xs with
  | [] -> d
  | x :: rest ->
    if i < 0 then d
    else if i = 0 then x
    else nth_or_default rest (i - 1) d
""", ([[10, 20, 30], 1, -1], 20), [[[], 0, 5], [[1, 2], 2, 9], [[1, 2], -1, 9], [[7, 8, 9], 0, 0]], ("else if i = 0 then x", "else if i = 1 then x")),

    P("capitalize_first", "string -> string", "returns `s` with its first character in upper case (ASCII; other characters unchanged).", r"""
(* Upper-case the first character. *)
let capitalize_first s =
  if String.length s = 0 then
    s
  else
    String.mapi
      (fun i c -> if i = 0 then Char.uppercase_ascii c else c)
      s
""", (["hello world"], "Hello world"), [[""], ["a"], ["Already"], ["1abc"], ["zZ"]], ("if i = 0 then", "if i = 1 then")),

    P("digit_sum", "int -> int", "returns the sum of the decimal digits of the non-negative integer `n`.", r"""
(* Sum digits by repeated division. *)
let digit_sum n =
  let rec go acc m =
    if m = 0 then acc
    else go (acc + (m mod 10)) (m / 10)
  in
  go 0 n
(* end *)
""", ([1234], 10), [[0], [9], [1000], [987654321]], ("(m mod 10)", "(m mod 9)")),

    P("range", "int -> int -> int list", "returns the integers from `a` up to `b - 1` in increasing order (empty when `a >= b`).", r"""
(* [a; a+1; ...; b-1], built from the end. *)
let range a b =
  let rec go acc k =
    if k < a then acc
    else go (k :: acc) (k - 1)
  in
  go [] (b - 1)
(* end *)
""", ([2, 6], [2, 3, 4, 5]), [[0, 0], [5, 3], [-2, 1], [0, 1]], ("go [] (b - 1)", "go [] b")),

    P("evens", "int list -> int list", "returns the even integers of `xs`, in their original order.", r"""
(* Keep the even numbers. *)
let evens xs =
  List.filter
    (fun x ->
      x mod 2 = 0)
    xs
(* negative numbers: -4 mod 2 = 0 *)
(* end *)
""", ([[1, 2, 3, 4]], [2, 4]), [[[]], [[1, 3]], [[-4, -3, 0]], [[8, 6, 7]]], ("x mod 2 = 0", "x mod 2 = 1")),

    P("product", "int list -> int", "returns the product of the integers in `xs` (1 for the empty list).", r"""
(* Product with fold. *)
let product xs =
  List.fold_left
    (fun acc x ->
      acc * x)
    1
    xs
(* end *)
""", ([[2, 3, 4]], 24), [[[]], [[0, 5]], [[-2, 3]], [[7]]], ("    1\n", "    0\n")),

    P("min_max", "int list -> (int * int) option", "returns the smallest and the largest element of `xs` as a pair, or `None` for the empty list.", r"""
(* One pass keeping both extremes. *)
let min_max xs =
  match xs with
  | [] -> None
  | x :: rest ->
    let lo, hi =
      List.fold_left (fun (lo, hi) y -> (min lo y, max hi y)) (x, x) rest
    in
    Some (lo, hi)
""", ([[3, 1, 4, 1, 5]], [1, 5]), [[[]], [[7]], [[-2, -9, 4]], [[5, 5]]], ("Some (lo, hi)", "Some (hi, lo)")),

    P("power", "int -> int -> int", "returns `b` raised to the non-negative integer power `e`.", r"""
(* Fast exponentiation by squaring. *)
let rec power b e =
  if e = 0 then 1
  else begin
    let half = power b (e / 2) in
    if e mod 2 = 0 then half * half
    else half * half * b
  end
""", ([2, 10], 1024), [[3, 0], [5, 3], [-2, 3], [1, 100], [0, 5]], ("else half * half * b", "else half * b")),

    P("contains", "int list -> int -> bool", "returns `true` when `x` is an element of `xs`.", r"""
(* Linear search. *)
let rec contains xs x =
  match xs with
  | [] -> false
  | y :: rest ->
    if y = x then true
    else contains rest x
(* end *)
""", ([[1, 2, 3], 2], True), [[[], 1], [[1, 2, 3], 4], [[5], 5], [[0, -1], -1]], ("| [] -> false", "| [] -> true")),

    P("celsius_to_fahrenheit", "float -> float", "converts a temperature in degrees Celsius to degrees Fahrenheit (F = C * 9/5 + 32).", r"""
(* Linear conversion. *)
let celsius_to_fahrenheit c =
  let factor = 9.0 /. 5.0 in
  let offset = 32.0 in
  let scaled = c *. factor in
  scaled +. offset
(* 100 C = 212 F *)
(* end *)
""", ([100.0], 212.0), [[0.0], [-40.0], [37.0], [-273.15]], ("let offset = 32.0 in", "let offset = 30.0 in")),

    P("remove_spaces", "string -> string", "returns `s` with every space character removed.", r"""
(* Copy everything but spaces. *)
let remove_spaces s =
  let buf = Buffer.create (String.length s) in
  String.iter
    (fun c ->
      if c <> ' ' then Buffer.add_char buf c)
    s;
  Buffer.contents buf
""", (["a b  c"], "abc"), [[""], ["   "], ["nospace"], [" lead and trail "]], ("if c <> ' '", "if c <> 'a'")),

    P("double_all", "int array -> int array", "returns a new array with every element of `a` multiplied by 2.", r"""
(* Map over an array. *)
let double_all a =
  Array.map
    (fun x ->
      x * 2)
    a
(* the input array is not modified *)
(* end *)
""", ([[1, 2, 3]], [2, 4, 6]), [[[]], [[-5]], [[0, 100]], [[7, 7, 7]]], ("x * 2", "x + 2")),

    P("is_sorted", "int list -> bool", "returns `true` when `xs` is in non-decreasing order.", r"""
(* Check neighbouring pairs. *)
let rec is_sorted xs =
  match xs with
  | [] | [_] -> true
  | a :: (b :: _ as rest) ->
    if a > b then false
    else is_sorted rest
(* end *)
""", ([[1, 2, 2, 5]], True), [[[]], [[3]], [[2, 1]], [[1, 3, 2]], [[-5, 0, 5]]], ("if a > b then false", "if a >= b then false")),

    P("abs_diff_sum", "int list -> int list -> int", "returns the sum of `abs (a - b)` over the pairs of elements at the same position in `xs` and `ys`, stopping at the end of the shorter list.", r"""
(* Pairwise absolute differences. *)
let rec abs_diff_sum xs ys =
  match xs, ys with
  | a :: xs', b :: ys' ->
    abs (a - b) + abs_diff_sum xs' ys'
  | _ ->
    0
(* end *)
""", ([[1, 5, 3], [4, 5, 1]], 5), [[[], [1]], [[1, 2, 3], [1, 2]], [[-3], [3]], [[10, 20], [0, 0, 0]]], ("abs (a - b)", "(a - b)")),
]

MEDIUM = [
    P("dedup", "int list -> int list", "removes consecutive duplicates from `xs`: each run of equal neighbours becomes one element.", r"""
(* Keep an element unless it equals the one before. *)
let rec dedup xs =
  match xs with
  | a :: (b :: _ as rest) ->
    if a = b then dedup rest
    else a :: dedup rest
  | short ->
    short
""", ([[1, 1, 2, 3, 3, 3, 1]], [1, 2, 3, 1]), [[[]], [[5]], [[2, 2, 2]], [[1, 2, 1, 2]]], ("if a = b then dedup rest", "if a = b then a :: dedup rest")),

    P("run_length", "string -> (char * int) list", "returns the run-length encoding of `s`: each maximal run of one character as (character, length), in order.", r"""
(* Scan once, extending the current run. *)
let run_length s =
  let n = String.length s in
  let rec go i acc =
    if i >= n then List.rev acc
    else
      match acc with
      | (c, k) :: rest when c = s.[i] -> go (i + 1) ((c, k + 1) :: rest)
      | _ -> go (i + 1) ((s.[i], 1) :: acc)
  in
  go 0 []
""", (["aaabcc"], [["a", 3], ["b", 1], ["c", 2]]), [[""], ["z"], ["abab"], ["xxxxxxxx"]], ("(c, k + 1)", "(c, k + 2)")),

    P("flatten", "int list list -> int list", "concatenates the lists of `xss` into one list, keeping the order.", r"""
(* Append each inner list, from the right. *)
let flatten xss =
  List.fold_right
    (fun xs acc ->
      xs @ acc)
    xss
    []
(* end *)
""", ([[[1, 2], [3], [], [4, 5]]], [1, 2, 3, 4, 5]), [[[]], [[[], []]], [[[7]]], [[[3, 2], [1]]]], ("xs @ acc", "acc @ xs")),

    P("zip_sum", "int list -> int list -> int list", "returns the sums of the elements at the same position of `xs` and `ys`, as long as the shorter list.", r"""
(* Pairwise sums, stopping at the shorter list. *)
let rec zip_sum xs ys =
  match xs, ys with
  | a :: xs', b :: ys' ->
    (a + b) :: zip_sum xs' ys'
  | _ ->
    []
(* end *)
""", ([[1, 2, 3], [10, 20]], [11, 22]), [[[], [1]], [[1], [1]], [[-1, -2], [1, 2]], [[5, 5, 5], [1, 2, 3]]], ("(a + b)", "(a * b)")),

    P("word_count", "string -> int", "returns the number of words in `s`, where words are maximal runs of characters other than spaces.", r"""
(* Count the starts of words. *)
let word_count s =
  let n = String.length s in
  let count = ref 0 in
  for i = 0 to n - 1 do
    if s.[i] <> ' ' && (i = 0 || s.[i - 1] = ' ') then incr count
  done;
  !count
""", (["  hello   big world "], 3), [[""], ["   "], ["one"], ["a b c d"]], ("(i = 0 || s.[i - 1] = ' ')", "(s.[i - 1 + (if i = 0 then 1 else 0)] = ' ')")),

    P("char_freq", "string -> (char * int) list", "returns each distinct character of `s` with its number of occurrences, sorted by character code.", r"""
(* Count into an array indexed by character code. *)
let char_freq s =
  let counts = Array.make 256 0 in
  String.iter (fun c -> counts.(Char.code c) <- counts.(Char.code c) + 1) s;
  let result = ref [] in
  for code = 255 downto 0 do
    if counts.(code) > 0 then result := (Char.chr code, counts.(code)) :: !result
  done;
  !result
""", (["banana"], [["a", 3], ["b", 1], ["n", 2]]), [[""], ["zzz"], ["Aa"], ["hello world"]], ("for code = 255 downto 0 do", "for code = 0 to 255 do")),

    P("binary_of_int", "int -> string", "returns the binary representation of the non-negative integer `n`, without leading zeros (\"0\" for 0).", r"""
(* Collect bits from the lowest. *)
let binary_of_int n =
  if n = 0 then "0"
  else begin
    let rec go m acc =
      if m = 0 then acc
      else go (m / 2) (string_of_int (m mod 2) ^ acc)
    in
    go n ""
  end
""", ([10], "1010"), [[0], [1], [255], [1024]], ("(string_of_int (m mod 2) ^ acc)", "(acc ^ string_of_int (m mod 2))")),

    P("int_of_binary", "string -> int", "returns the value of the binary numeral `s` (made of '0' and '1'; the empty string is 0).", r"""
(* Horner's rule in base 2. *)
let int_of_binary s =
  String.fold_left
    (fun acc c ->
      let bit = if c = '1' then 1 else 0 in
      acc * 2 + bit)
    0
    s
(* end *)
""", (["1010"], 10), [[""], ["0"], ["1"], ["11111111"], ["100000"]], ("acc * 2 + bit", "acc + bit")),

    P("rotate_left", "int list -> int -> int list", "rotates `xs` left by `k` positions (k >= 0; rotating by the length or more wraps around).", r"""
(* Split at k mod n and swap the halves. *)
let rotate_left xs k =
  let n = List.length xs in
  if n = 0 then []
  else begin
    let k = k mod n in
    let front = List.filteri (fun i _ -> i < k) xs in
    let back = List.filteri (fun i _ -> i >= k) xs in
    back @ front
  end
""", ([[1, 2, 3, 4, 5], 2], [3, 4, 5, 1, 2]), [[[], 3], [[1, 2, 3], 0], [[1, 2, 3], 3], [[1, 2, 3], 4]], ("let k = k mod n in", "let k = k mod (n + 1) in")),

    P("merge_sorted", "int list -> int list -> int list", "merges two lists sorted in non-decreasing order into one sorted list.", r"""
(* The merge step of merge sort. *)
let rec merge_sorted xs ys =
  match xs, ys with
  | [], l | l, [] -> l
  | x :: xs', y :: ys' ->
    if x <= y then x :: merge_sorted xs' ys
    else y :: merge_sorted xs ys'
(* end *)
""", ([[1, 4, 6], [2, 3, 7]], [1, 2, 3, 4, 6, 7]), [[[], []], [[1], []], [[], [2, 2]], [[5, 5], [1, 9]]], ("if x <= y then x :: merge_sorted xs' ys", "if x <= y then x :: merge_sorted xs' ys'")),

    P("insertion_sort", "int list -> int list", "returns `xs` sorted in non-decreasing order, using insertion sort (do not call `List.sort`).", r"""
(* Insert each element into a sorted accumulator. *)
let insertion_sort xs =
  let rec insert x = function
    | [] -> [x]
    | y :: rest as l ->
      if x <= y then x :: l
      else y :: insert x rest
  in
  List.fold_left (fun acc x -> insert x acc) [] xs
""", ([[3, 1, 2]], [1, 2, 3]), [[[]], [[5, 4, 3, 2, 1]], [[2, 2, 1]], [[-1, 10, 0]]], ("if x <= y then x :: l", "if x >= y then x :: l")),

    P("second_largest", "int list -> int option", "returns the second largest distinct value of `xs`, or `None` when there are fewer than two distinct values.", r"""
(* Sort the distinct values in decreasing order. *)
let second_largest xs =
  let distinct = List.sort_uniq compare xs in
  match List.rev distinct with
  | _ :: second :: _ ->
    Some second
  | _ ->
    None
(* end *)
""", ([[3, 7, 7, 5]], 5), [[[]], [[4]], [[2, 2, 2]], [[1, 2]], [[-1, -5, -3]]], ("match List.rev distinct with", "match distinct with")),

    P("are_anagrams", "string -> string -> bool", "returns `true` when `a` and `b` contain the same characters with the same counts.", r"""
(* Compare sorted characters. *)
let are_anagrams a b =
  let sorted s =
    let chars = List.init (String.length s) (String.get s) in
    List.sort compare chars
  in
  String.length a = String.length b
  && sorted a = sorted b
""", (["listen", "silent"], True), [["", ""], ["a", "b"], ["aab", "abb"], ["abc", "cab"], ["ab", "abc"]], ("&& sorted a = sorted b", "&& List.length (sorted a) = List.length (sorted b)")),

    P("pascal_row", "int -> int list", "returns row `n` (from 0) of Pascal's triangle.", r"""
(* Each row from the previous one. *)
let pascal_row n =
  let next row =
    let shifted = 0 :: row in
    let padded = row @ [0] in
    List.map2 ( + ) shifted padded
  in
  let rec go k row = if k = 0 then row else go (k - 1) (next row) in
  go n [1]
""", ([4], [1, 4, 6, 4, 1]), [[0], [1], [2], [6]], ("go n [1]", "go (n - 1) [1]")),

    P("chunk", "int list -> int -> int list list", "splits `xs` into consecutive chunks of `k` elements (k >= 1); the last chunk may be shorter.", r"""
(* Fill the current chunk, then start a new one. *)
let chunk xs k =
  let rec go acc cur n = function
    | [] -> List.rev (if cur = [] then acc else List.rev cur :: acc)
    | x :: rest ->
      if n = k then go (List.rev cur :: acc) [x] 1 rest
      else go acc (x :: cur) (n + 1) rest
  in
  go [] [] 0 xs
""", ([[1, 2, 3, 4, 5], 2], [[1, 2], [3, 4], [5]]), [[[], 3], [[1, 2, 3], 3], [[1, 2, 3], 1], [[4, 5], 5]], ("if n = k then", "if n > k then")),

    P("transpose", "int list list -> int list list", "transposes a rectangular matrix given as a list of rows (the empty matrix stays empty).", r"""
(* Take the heads as a row, recurse on the tails. *)
let rec transpose rows =
  match rows with
  | [] | [] :: _ -> []
  | _ ->
    let heads = List.map List.hd rows in
    let tails = List.map List.tl rows in
    heads :: transpose tails
(* end *)
""", ([[[1, 2, 3], [4, 5, 6]]], [[1, 4], [2, 5], [3, 6]]), [[[]], [[[1]]], [[[1, 2]]], [[[1], [2], [3]]]], ("heads :: transpose tails", "List.rev heads :: transpose tails")),

    P("roman", "int -> string", "returns the Roman numeral for `n` (1 <= n <= 3999), in the standard subtractive form.", r"""
(* Greedy over the value table. *)
let roman n =
  let table = [ (1000, "M"); (900, "CM"); (500, "D"); (400, "CD"); (100, "C"); (90, "XC");
                (50, "L"); (40, "XL"); (10, "X"); (9, "IX"); (5, "V"); (4, "IV"); (1, "I") ] in
  let buf = Buffer.create 16 in
  let rest = ref n in
  List.iter (fun (v, s) ->
    while !rest >= v do Buffer.add_string buf s; rest := !rest - v done) table;
  Buffer.contents buf
""", ([1994], "MCMXCIV"), [[1], [4], [9], [3999], [58]], ("(4, \"IV\"); ", "")),

    P("caesar", "string -> int -> string", "shifts every lowercase letter of `s` forward by `k` places in the alphabet (wrapping from z to a; 0 <= k < 26), leaving other characters unchanged.", r"""
(* Rotate lowercase letters only. *)
let caesar s k =
  String.map
    (fun c ->
      if c >= 'a' && c <= 'z' then
        Char.chr (Char.code 'a' + (Char.code c - Char.code 'a' + k) mod 26)
      else c)
    s
""", (["hello, world", 3], "khoor, zruog"), [["", 5], ["xyz", 3], ["ABC abc", 1], ["zebra", 0]], (" mod 26", " mod 27")),

    P("balanced", "string -> bool", "returns `true` when the brackets `()`, `[]` and `{}` in `s` are balanced and properly nested (other characters are ignored).", r"""
(* A stack of expected closers. *)
let balanced s =
  let rec go i stack =
    if i = String.length s then stack = []
    else match s.[i], stack with
      | ('(' | '[' | '{') as c, _ -> go (i + 1) (c :: stack)
      | ')', '(' :: rest | ']', '[' :: rest | '}', '{' :: rest -> go (i + 1) rest
      | (')' | ']' | '}'), _ -> false
      | _ -> go (i + 1) stack
  in
  go 0 []
""", (["([]{})"], True), [[""], ["(]"], ["(("], ["a(b[c]d)e"], ["())("]], ("then stack = []", "then true")),

    P("split_on", "string -> char -> string list", "splits `s` at every occurrence of `sep`, keeping empty pieces (so the result always has one more piece than there are separators).", r"""
(* Walk the string, cutting at separators. *)
let split_on s sep =
  let pieces = ref [] in
  let start = ref 0 in
  String.iteri (fun i c ->
    if c = sep then begin
      pieces := String.sub s !start (i - !start) :: !pieces;
      start := i + 1 end) s;
  List.rev (String.sub s !start (String.length s - !start) :: !pieces)
""", (["a,b,,c", ","], ["a", "b", "", "c"]), [["", ","], ["abc", ","], [",", ","], ["x y z", " "]], ("start := i + 1", "start := i")),

    P("collatz_steps", "int -> int", "returns how many Collatz steps (n -> n/2 when even, 3n+1 when odd) it takes to reach 1 from `n` >= 1.", r"""
(* Count steps until reaching 1. *)
let collatz_steps n =
  let rec go m steps =
    if m = 1 then steps
    else if m mod 2 = 0 then go (m / 2) (steps + 1)
    else go (3 * m + 1) (steps + 1)
  in
  go n 0
(* end *)
""", ([6], 8), [[1], [2], [7], [27]], ("go (3 * m + 1) (steps + 1)", "go (3 * m + 1) steps")),

    P("prefix_sums", "int list -> int list", "returns the running totals of `xs`: the i-th result is the sum of the first i+1 elements.", r"""
(* Accumulate while walking. *)
let prefix_sums xs =
  let rec go acc total = function
    | [] -> List.rev acc
    | x :: rest ->
      let t = total + x in
      go (t :: acc) t rest
  in
  go [] 0 xs
""", ([[1, 2, 3, 4]], [1, 3, 6, 10]), [[[]], [[5]], [[-1, 1, -1]], [[0, 0, 7]]], ("go (t :: acc) t rest", "go (t :: acc) x rest")),

    P("most_frequent", "int list -> int option", "returns the value occurring most often in `xs` (the smallest such value on a tie), or `None` for the empty list.", r"""
(* Count runs of the sorted list. *)
let most_frequent xs =
  let rec best cur_v cur_n best_v best_n = function
    | [] -> if cur_n > best_n then (cur_v, cur_n) else (best_v, best_n)
    | x :: rest when x = cur_v -> best cur_v (cur_n + 1) best_v best_n rest
    | x :: rest ->
      let bv, bn = if cur_n > best_n then (cur_v, cur_n) else (best_v, best_n) in
      best x 1 bv bn rest
  in
  match List.sort compare xs with [] -> None | x :: rest -> Some (fst (best x 1 x 0 rest))
""", ([[1, 3, 3, 2, 1, 3]], 3), [[[]], [[4]], [[2, 1]], [[5, 5, 1, 1, 9]], [[7, 8, 8]]], ("if cur_n > best_n then (cur_v, cur_n) else (best_v, best_n) in", "if cur_n >= best_n then (cur_v, cur_n) else (best_v, best_n) in")),

    P("dot_product", "float list -> float list -> float", "returns the dot product of two float vectors of the same length.", r"""
(* Sum of pairwise products. *)
let dot_product xs ys =
  List.fold_left2
    (fun acc x y ->
      acc +. (x *. y))
    0.0
    xs
    ys
""", ([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], 32.0), [[[], []], [[0.5], [4.0]], [[-1.0, 1.0], [1.0, 1.0]], [[1.5, 2.5], [2.0, -2.0]]], ("acc +. (x *. y)", "acc +. (x +. y)")),

    P("interleave", "int list -> int list -> int list", "interleaves `xs` and `ys` (first of xs, first of ys, ...), appending the rest of the longer list.", r"""
(* Alternate between the two lists. *)
let rec interleave xs ys =
  match xs, ys with
  | [], rest | rest, [] -> rest
  | x :: xs', y :: ys' ->
    x :: y :: interleave xs' ys'
(* end *)
(* end *)
""", ([[1, 3, 5], [2, 4]], [1, 2, 3, 4, 5]), [[[], [1, 2]], [[1], []], [[1, 2], [9, 8, 7, 6]], [[0], [0]]], ("x :: y :: interleave xs' ys'", "y :: x :: interleave xs' ys'")),

    P("split_parity", "int list -> int list * int list", "returns the even elements and the odd elements of `xs` as a pair of lists, each in the original order.", r"""
(* Partition by parity. *)
let split_parity xs =
  List.partition
    (fun x ->
      x mod 2 = 0)
    xs
(* odd negatives: -3 mod 2 = -1, not 0 *)
(* end *)
""", ([[1, 2, 3, 4, 5]], [[2, 4], [1, 3, 5]]), [[[]], [[2]], [[-3, -2]], [[7, 9]]], ("x mod 2 = 0", "x mod 2 = 1")),

    P("index_of", "int list -> int -> int option", "returns the index (from 0) of the first occurrence of `x` in `xs`, or `None`.", r"""
(* Search with a counter. *)
let index_of xs x =
  let rec go i = function
    | [] -> None
    | y :: rest ->
      if y = x then Some i
      else go (i + 1) rest
  in
  go 0 xs
""", ([[5, 7, 9, 7], 7], 1), [[[], 1], [[1, 2], 3], [[4], 4], [[0, 0, 1], 1]], ("go 0 xs", "go 1 xs")),

    P("compress", "string -> string", "compresses runs in `s`: each maximal run of one character becomes the character followed by the run's length (\"aaab\" -> \"a3b1\").", r"""
(* Run-length encoding written out. *)
let compress s =
  let n = String.length s in
  let buf = Buffer.create (2 * n) in
  let i = ref 0 in
  while !i < n do
    let j = ref !i in
    while !j < n && s.[!j] = s.[!i] do incr j done;
    Buffer.add_char buf s.[!i];
    Buffer.add_string buf (string_of_int (!j - !i));
    i := !j
  done;
  Buffer.contents buf
""", (["aaabcc"], "a3b1c2"), [[""], ["a"], ["abcd"], ["zzzzzzzzzzzz"]], ("(!j - !i)", "(!j - !i - 1)")),

    P("sum_of_digits_in", "string -> int", "returns the sum of the decimal digit characters in `s`, ignoring everything else.", r"""
(* Add up the digits. *)
let sum_of_digits_in s =
  String.fold_left
    (fun acc c ->
      if c >= '0' && c <= '9' then acc + (Char.code c - Char.code '0')
      else acc)
    0
    s
""", (["a1b2c3"], 6), [[""], ["abc"], ["999"], ["0x10"]], ("(Char.code c - Char.code '0')", "1")),

    P("take_while_positive", "int list -> int list", "returns the longest prefix of `xs` whose elements are all strictly positive.", r"""
(* Stop at the first non-positive element. *)
let rec take_while_positive xs =
  match xs with
  | x :: rest when x > 0 ->
    x :: take_while_positive rest
  | _ ->
    []
(* end *)
""", ([[3, 1, 0, 4]], [3, 1]), [[[]], [[-1, 2]], [[1, 2, 3]], [[5, -5, 5]]], ("when x > 0", "when x >= 0")),
]

HARD = [
    P("lis_length", "int list -> int", "returns the length of the longest strictly increasing subsequence of `xs`.", r"""
(* O(n^2) dynamic programming over end positions. *)
let lis_length xs =
  let a = Array.of_list xs in
  let n = Array.length a in
  let best = Array.make n 1 in
  for i = 0 to n - 1 do
    for j = 0 to i - 1 do
      if a.(j) < a.(i) && best.(j) + 1 > best.(i) then best.(i) <- best.(j) + 1
    done
  done;
  Array.fold_left max 0 best
""", ([[10, 9, 2, 5, 3, 7, 101, 18]], 4), [[[]], [[1]], [[5, 4, 3]], [[1, 2, 2, 3]], [[3, 1, 2, 1, 8, 5, 6]]], ("a.(j) < a.(i)", "a.(j) <= a.(i)")),

    P("edit_distance", "string -> string -> int", "returns the Levenshtein distance between `a` and `b` (insertions, deletions and substitutions cost 1).", r"""
(* Classic DP table, one row at a time. *)
let edit_distance a b =
  let n, m = String.length a, String.length b in
  let prev = Array.init (m + 1) (fun j -> j) in
  for i = 1 to n do
    let cur = Array.make (m + 1) i in
    for j = 1 to m do
      let cost = if a.[i - 1] = b.[j - 1] then 0 else 1 in
      cur.(j) <- min (min (prev.(j) + 1) (cur.(j - 1) + 1)) (prev.(j - 1) + cost)
    done;
    Array.blit cur 0 prev 0 (m + 1)
  done;
  prev.(m)
""", (["kitten", "sitting"], 3), [["", ""], ["abc", ""], ["", "ab"], ["flaw", "lawn"], ["same", "same"]], ("then 0 else 1", "then 0 else 2")),

    P("knapsack", "(int * int) list -> int -> int", "returns the largest total value of items (weight, value) that fit in capacity `cap`, each item used at most once.", r"""
(* 0/1 knapsack over capacities, iterating capacities downwards. *)
let knapsack items cap =
  let best = Array.make (cap + 1) 0 in
  List.iter
    (fun (w, v) ->
      for c = cap downto w do
        if best.(c - w) + v > best.(c) then best.(c) <- best.(c - w) + v
      done)
    items;
  best.(cap)
""", ([[[1, 1], [3, 4], [4, 5], [5, 7]], 7], 9), [[[], 10], [[[5, 10]], 4], [[[2, 3], [2, 3], [2, 3]], 4], [[[1, 2]], 1], [[[2, 3]], 4]], ("for c = cap downto w do", "for c = w to cap do")),

    P("coin_change", "int list -> int -> int option", "returns the fewest coins (denominations `coins`, unlimited supply) that sum to `amount`, or `None` when impossible (0 coins for amount 0).", r"""
(* Unbounded DP over amounts; max_int marks unreachable. *)
let coin_change coins amount =
  let best = Array.make (amount + 1) max_int in
  best.(0) <- 0;
  for a = 1 to amount do
    List.iter (fun c ->
      if c <= a && best.(a - c) <> max_int && best.(a - c) + 1 < best.(a) then
        best.(a) <- best.(a - c) + 1) coins
  done;
  if best.(amount) = max_int then None else Some best.(amount)
""", ([[1, 2, 5], 11], 3), [[[2], 3], [[1], 0], [[3, 7], 14], [[5, 10, 25], 30], [[4, 6], 10]], ("best.(a - c) + 1 < best.(a)", "best.(a - c) + 1 <= best.(a) && c > 1")),

    P("permutations", "int list -> int list list", "returns all permutations of `xs` (distinct integers, given in increasing order) in lexicographic order.", r"""
(* Pick each element as the head, in order, and permute the rest. *)
let rec permutations xs =
  match xs with
  | [] -> [ [] ]
  | _ ->
    List.concat_map
      (fun x ->
        let rest = List.filter (fun y -> y <> x) xs in
        List.map (fun p -> x :: p) (permutations rest))
      xs
""", ([[1, 2, 3]], [[1, 2, 3], [1, 3, 2], [2, 1, 3], [2, 3, 1], [3, 1, 2], [3, 2, 1]]), [[[]], [[5]], [[1, 2]], [[0, 4, 9, 10]]], ("(fun p -> x :: p)", "(fun p -> p @ [x])")),

    P("count_subset_sums", "int list -> int -> int", "returns how many subsets of `xs` (by position; positive integers) sum to `target` (the empty subset counts for target 0).", r"""
(* Count with a DP over sums, each element used at most once. *)
let count_subset_sums xs target =
  let ways = Array.make (target + 1) 0 in
  ways.(0) <- 1;
  List.iter
    (fun x ->
      for s = target downto x do
        ways.(s) <- ways.(s) + ways.(s - x)
      done)
    xs;
  ways.(target)
""", ([[1, 2, 3, 4], 5], 2), [[[], 0], [[5], 3], [[1, 1, 1], 2], [[2, 4, 6, 10], 16]], ("for s = target downto x do", "for s = x to target do")),

    P("common_prefix", "string list -> string", "returns the longest common prefix of all strings in `words` (\"\" for the empty list).", r"""
(* Shrink the candidate prefix word by word. *)
let common_prefix words =
  let prefix2 a b =
    let n = min (String.length a) (String.length b) in
    let rec go i = if i < n && a.[i] = b.[i] then go (i + 1) else i in
    String.sub a 0 (go 0)
  in
  match words with
  | [] -> ""
  | w :: rest -> List.fold_left prefix2 w rest
""", ([["flower", "flow", "flight"]], "fl"), [[[]], [["alone"]], [["dog", "racecar"]], [["abc", "abcd", "ab"]], [["", "x"]]], ("String.sub a 0 (go 0)", "String.sub a 0 (max 0 (go 0 - 1))")),

    P("eval_rpn", "string -> int option", "evaluates a Reverse Polish expression of integers and the operators + - * / (integer division, truncating) separated by single spaces; returns `None` when it is malformed or divides by zero.", r"""
(* A stack machine; any failure gives None. *)
let eval_rpn s =
  let step stack tok =
    match tok, stack with
    | ("+" | "-" | "*" | "/"), b :: a :: rest ->
      (match tok with
       | "+" -> (a + b) :: rest | "-" -> (a - b) :: rest | "*" -> (a * b) :: rest
       | _ -> if b = 0 then raise Exit else (a / b) :: rest)
    | _ -> (match int_of_string_opt tok with Some n -> n :: stack | None -> raise Exit)
  in
  match List.fold_left step [] (String.split_on_char ' ' s) with
  | [v] -> Some v | _ -> None | exception Exit -> None
""", (["3 4 + 2 *"], 14), [["5 1 2 + 4 * + 3 -"], ["1 +"], ["4 0 /"], ["42"], ["7 2 /"], ["1 2"]], ("\"-\" -> (a - b)", "\"-\" -> (b - a)")),

    P("n_queens", "int -> int", "returns the number of ways to place `n` queens on an n x n board so that no two attack each other.", r"""
(* Backtracking over rows with column and diagonal checks. *)
let n_queens n =
  let cols = Array.make n false and d1 = Array.make (2 * n) false and d2 = Array.make (2 * n) false in
  let rec place r =
    if r = n then 1
    else begin
      let count = ref 0 in
      for c = 0 to n - 1 do
        if not cols.(c) && not d1.(r + c) && not d2.(r - c + n) then begin
          cols.(c) <- true; d1.(r + c) <- true; d2.(r - c + n) <- true;
          count := !count + place (r + 1);
          cols.(c) <- false; d1.(r + c) <- false; d2.(r - c + n) <- false
        end
      done;
      !count
    end
  in
  place 0
""", ([4], 2), [[1], [2], [3], [5], [6], [8]], ("&& not d2.(r - c + n)", "")),

    P("primes_up_to", "int -> int list", "returns the prime numbers less than or equal to `n`, in increasing order (sieve of Eratosthenes).", r"""
(* Sieve, then collect. *)
let primes_up_to n =
  if n < 2 then []
  else begin
    let sieve = Array.make (n + 1) true in
    for i = 2 to n do
      if sieve.(i) && i * i <= n then
        let j = ref (i * i) in
        while !j <= n do sieve.(!j) <- false; j := !j + i done
    done;
    List.filter (fun i -> sieve.(i)) (List.init (n - 1) (fun k -> k + 2))
  end
""", ([20], [2, 3, 5, 7, 11, 13, 17, 19]), [[1], [2], [3], [30], [0]], ("let j = ref (i * i) in", "let j = ref (i * i + i) in")),

    P("lcs_length", "string -> string -> int", "returns the length of the longest common subsequence of `a` and `b`.", r"""
(* DP table of prefix lengths. *)
let lcs_length a b =
  let n, m = String.length a, String.length b in
  let t = Array.make_matrix (n + 1) (m + 1) 0 in
  for i = 1 to n do
    for j = 1 to m do
      t.(i).(j) <-
        if a.[i - 1] = b.[j - 1] then t.(i - 1).(j - 1) + 1
        else max t.(i - 1).(j) t.(i).(j - 1)
    done
  done;
  t.(n).(m)
""", (["abcde", "ace"], 3), [["", "abc"], ["abc", "def"], ["AGGTAB", "GXTXAYB"], ["aaaa", "aa"]], ("else max t.(i - 1).(j) t.(i).(j - 1)", "else t.(i - 1).(j)")),

    P("max_subarray", "int list -> int", "returns the largest sum of a non-empty contiguous sublist of `xs` (0 for the empty list).", r"""
(* Kadane's algorithm. *)
let max_subarray xs =
  match xs with
  | [] -> 0
  | x :: rest ->
    let _, best =
      List.fold_left
        (fun (cur, best) y -> let cur = max y (cur + y) in (cur, max best cur))
        (x, x) rest
    in
    best
""", ([[-2, 1, -3, 4, -1, 2, 1, -5, 4]], 6), [[[]], [[-3]], [[-3, -1, -2]], [[5, -1, 5]], [[1, 2, 3]]], ("max y (cur + y)", "max 0 (cur + y)")),

    P("merge_intervals", "(int * int) list -> (int * int) list", "merges overlapping or touching closed intervals (lo, hi) and returns them sorted by start.", r"""
(* Sort by start, then extend or start a new interval. *)
let merge_intervals ivs =
  let sorted = List.sort compare ivs in
  let rec go acc = function
    | [] -> List.rev acc
    | (lo, hi) :: rest ->
      match acc with
      | (plo, phi) :: acc' when lo <= phi -> go ((plo, max phi hi) :: acc') rest
      | _ -> go ((lo, hi) :: acc) rest
  in
  go [] sorted
""", ([[[1, 3], [2, 6], [8, 10], [15, 18]]], [[1, 6], [8, 10], [15, 18]]), [[[]], [[[1, 4], [4, 5]]], [[[5, 6], [1, 2]]], [[[1, 10], [2, 3], [4, 5]]]], ("(plo, max phi hi)", "(plo, hi)")),

    P("word_break", "string -> string list -> bool", "returns `true` when `s` can be split into a sequence of one or more words from `dict` (words may repeat; the empty string can always be split).", r"""
(* ok.(i): the first i characters can be split. *)
let word_break s dict =
  let n = String.length s in
  let ok = Array.make (n + 1) false in
  ok.(0) <- true;
  for i = 1 to n do
    List.iter (fun w ->
      let l = String.length w in
      if l <= i && ok.(i - l) && String.sub s (i - l) l = w then ok.(i) <- true) dict
  done;
  ok.(n)
""", (["leetcode", ["leet", "code"]], True), [["", ["a"]], ["applepenapple", ["apple", "pen"]], ["catsandog", ["cats", "dog", "sand", "and", "cat"]], ["aaaa", ["aa"]], ["ab", ["a"]]], ("&& ok.(i - l) &&", "&&")),

    P("count_islands", "string list -> int", "counts the islands in a grid given as rows of '#' (land) and '.' (water); land cells joined horizontally or vertically form one island.", r"""
(* Flood fill from every unvisited land cell. *)
let count_islands rows =
  let g = Array.of_list rows in
  let h = Array.length g in
  let w = if h = 0 then 0 else String.length g.(0) in
  let seen = Array.make_matrix h w false in
  let rec fill r c =
    if r >= 0 && r < h && c >= 0 && c < w && g.(r).[c] = '#' && not seen.(r).(c) then begin
      seen.(r).(c) <- true; fill (r + 1) c; fill (r - 1) c; fill r (c + 1); fill r (c - 1) end
  in
  let count = ref 0 in
  for r = 0 to h - 1 do for c = 0 to w - 1 do
    if g.(r).[c] = '#' && not seen.(r).(c) then (incr count; fill r c) done done;
  !count
""", ([["##..", "#..#", "..##"]], 2), [[[]], [["...."]], [["#.#", ".#.", "#.#"]], [["###", "#.#", "###"]]], ("fill (r + 1) c; fill (r - 1) c; ", "")),

    P("spiral", "int list list -> int list", "returns the elements of a rectangular matrix (list of rows) in clockwise spiral order, starting at the top-left corner.", r"""
(* Peel the top row, then rotate the rest counter-clockwise. *)
let rec spiral rows =
  let rotate m =
    match m with
    | [] | [] :: _ -> []
    | first :: _ ->
      List.rev (List.init (List.length first) (fun j -> List.map (fun r -> List.nth r j) m))
  in
  match rows with
  | [] -> []
  | top :: rest -> top @ spiral (rotate rest)
""", ([[[1, 2, 3], [4, 5, 6], [7, 8, 9]]], [1, 2, 3, 6, 9, 8, 7, 4, 5]), [[[]], [[[1]]], [[[1, 2], [3, 4]]], [[[1, 2, 3, 4], [5, 6, 7, 8]]], [[[1], [2], [3]]]], ("List.rev (List.init", "(List.init")),

    P("decode_ways", "string -> int", "returns how many ways the digit string `s` decodes with A=1 ... Z=26 (\"\" decodes in 1 way; a part may not start with 0).", r"""
(* DP: ways to decode each prefix. *)
let decode_ways s =
  let n = String.length s in
  let ways = Array.make (n + 1) 0 in
  ways.(0) <- 1;
  for i = 1 to n do
    if s.[i - 1] <> '0' then ways.(i) <- ways.(i - 1);
    if i >= 2 then begin
      let two = int_of_string (String.sub s (i - 2) 2) in
      if s.[i - 2] <> '0' && two <= 26 then ways.(i) <- ways.(i) + ways.(i - 2)
    end
  done;
  ways.(n)
""", (["226"], 3), [[""], ["0"], ["10"], ["12"], ["11106"], ["27"]], ("two <= 26", "two <= 27")),

    P("min_path_sum", "int list list -> int", "returns the smallest sum of a path from the top-left to the bottom-right cell of a non-empty rectangular grid, moving only right or down.", r"""
(* Row by row DP. *)
let min_path_sum grid =
  let g = Array.of_list (List.map Array.of_list grid) in
  let h, w = Array.length g, Array.length g.(0) in
  let best = Array.make_matrix h w 0 in
  for r = 0 to h - 1 do
    for c = 0 to w - 1 do
      best.(r).(c) <- g.(r).(c) + (match r, c with
        | 0, 0 -> 0 | 0, _ -> best.(r).(c - 1) | _, 0 -> best.(r - 1).(c)
        | _ -> min best.(r - 1).(c) best.(r).(c - 1))
    done
  done;
  best.(h - 1).(w - 1)
""", ([[[1, 3, 1], [1, 5, 1], [4, 2, 1]]], 7), [[[[5]]], [[[1, 2, 3]]], [[[1], [2], [3]]], [[[1, 2], [1, 1]]]], ("min best.(r - 1).(c) best.(r).(c - 1)", "max best.(r - 1).(c) best.(r).(c - 1)")),

    P("next_permutation", "int array -> int array", "returns the next permutation of `a` in lexicographic order, as a new array (the smallest one, sorted ascending, after the largest).", r"""
(* Find the pivot, swap with the next larger from the right, reverse the suffix. *)
let next_permutation a =
  let a = Array.copy a in
  let n = Array.length a in
  let i = ref (n - 2) in
  while !i >= 0 && a.(!i) >= a.(!i + 1) do decr i done;
  let swap x y = let t = a.(x) in a.(x) <- a.(y); a.(y) <- t in
  if !i >= 0 then begin
    let j = ref (n - 1) in
    while a.(!j) <= a.(!i) do decr j done;
    swap !i !j
  end;
  let lo = ref (!i + 1) and hi = ref (n - 1) in
  while !lo < !hi do swap !lo !hi; incr lo; decr hi done;
  a
""", ([[1, 2, 3]], [1, 3, 2]), [[[]], [[3, 2, 1]], [[1, 1, 5]], [[1, 3, 2]], [[2, 3, 1]]], ("while !lo < !hi do swap !lo !hi; incr lo; decr hi done;", "")),

    P("trapped_water", "int list -> int", "returns how many units of rain water are trapped between the bars of the given heights.", r"""
(* Water above each bar = min of the highest bars left and right, minus its height. *)
let trapped_water hs =
  let a = Array.of_list hs in
  let n = Array.length a in
  let left = Array.make n 0 and right = Array.make n 0 in
  for i = 0 to n - 1 do left.(i) <- max a.(i) (if i > 0 then left.(i - 1) else 0) done;
  for i = n - 1 downto 0 do right.(i) <- max a.(i) (if i < n - 1 then right.(i + 1) else 0) done;
  let total = ref 0 in
  for i = 0 to n - 1 do total := !total + min left.(i) right.(i) - a.(i) done;
  !total
""", ([[0, 1, 0, 2, 1, 0, 1, 3, 2, 1, 2, 1]], 6), [[[]], [[4, 2, 0, 3, 2, 5]], [[1, 2, 3]], [[3, 0, 3]]], ("min left.(i) right.(i)", "max left.(i) right.(i)")),

    P("unique_paths", "int -> int -> int", "returns the number of paths from the top-left to the bottom-right corner of an `m` x `n` grid moving only right or down (m, n >= 1).", r"""
(* One row of the DP table, updated in place. *)
let unique_paths m n =
  let row = Array.make n 1 in
  for _ = 2 to m do
    for c = 1 to n - 1 do
      row.(c) <- row.(c) + row.(c - 1)
    done
  done;
  row.(n - 1)
""", ([3, 7], 28), [[1, 1], [2, 2], [3, 3], [10, 10], [1, 5]], ("row.(c) + row.(c - 1)", "row.(c) + 1")),

    P("longest_palindrome", "string -> string", "returns the longest palindromic substring of `s` (the leftmost one on a tie; \"\" for \"\").", r"""
(* Expand around every centre, keeping the first longest. *)
let longest_palindrome s =
  let n = String.length s in
  let best = ref (0, 0) in
  let expand lo hi =
    let lo = ref lo and hi = ref hi in
    while !lo >= 0 && !hi < n && s.[!lo] = s.[!hi] do decr lo; incr hi done;
    let start, len = !lo + 1, !hi - !lo - 1 in
    if len > snd !best then best := (start, len)
  in
  for i = 0 to n - 1 do expand i i; expand i (i + 1) done;
  String.sub s (fst !best) (snd !best)
""", (["babad"], "bab"), [[""], ["cbbd"], ["a"], ["forgeeksskeegfor"], ["abc"]], ("expand i i; expand i (i + 1)", "expand i i")),
]

TIERS = {"easy": EASY, "medium": MEDIUM, "hard": HARD}


def signature(p: dict) -> str:
    return f"val {p['name']} : {p['type']}"


def show(t, v, arg: bool = True) -> str:
    """An OCaml value as a person writes it in a prompt (`arg`: parenthesise negatives)."""
    k = t.kind
    if k in ("int", "float"):
        text = repr(float(v)) if k == "float" else str(v)
        return f"({text})" if arg and text.startswith("-") else text
    if k == "bool":
        return "true" if v else "false"
    if k == "string":
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if k == "char":
        return f"'{v}'"
    if k == "unit":
        return "()"
    if k == "option":
        return "None" if v is None else f"(Some {show(t.args[0], v)})" if arg else f"Some {show(t.args[0], v)}"
    if k == "tuple":
        return "(" + ", ".join(show(a, x, False) for a, x in zip(t.args, v)) + ")"
    items = "; ".join(show(t.args[0], x, False) for x in v)
    return f"[{items}]" if k == "list" else f"[|{items}|]"


def wrong_answers(p: dict) -> list[str]:
    """The reference with its `wrong` edit applied (must change it)."""
    old, new = p["wrong"]
    if old not in p["ref"]:
        raise AssertionError(f"{p['name']}: wrong edit {old!r} not found in the reference")
    return [p["ref"].replace(old, new, 1)]


def _rows() -> list[dict]:
    from data.ocaml_types import parse_signature
    rows = []
    for tier, problems in TIERS.items():
        for k, p in enumerate(problems, start=1):
            sig = signature(p)
            _, args, result = parse_signature(sig)
            ex_in, ex_out = p["example"]
            call = " ".join([p["name"], *(show(t, v) for t, v in zip(args, ex_in))])
            rows.append({
                "id": f"ml-{tier}-{k:03d}",
                "prompt": (f"Write an OCaml function `{sig}` that {p['task']} For example, `{call}` "
                           f"returns `{show(result, ex_out, False)}`. {INSTRUCTION}"),
                "entry_point": p["name"], "difficulty": tier, "split": "heldout" if k % 5 == 0 else "train",
                "reference": p["ref"], "tests": [{"input": i} for i in [ex_in, *p["inputs"]]],
                "test_code": None, "signature": sig, "meta": {"source": "rlaif-builtin"}, "language": "ocaml",
                "context": None,
                "_example": ex_out, "_wrong": wrong_answers(p)})
    return rows


def build() -> list[dict]:
    """Rows with expected outputs from the references (run in the judge's sandbox, in parallel)."""
    from data.schema import Problem
    from judges.ocaml import OcamlJudge
    rows = _rows()
    judge = OcamlJudge()

    def outputs(row: dict) -> list:
        fields = {k: v for k, v in row.items() if not k.startswith("_")}
        probe = Problem(**{**fields, "tests": [{**t, "output": None} for t in row["tests"]]})
        return judge.outputs(probe, row["reference"])

    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(outputs, rows))
    for row, outs in zip(rows, results):
        got = json.loads(json.dumps(outs[0]))
        if got != json.loads(json.dumps(row["_example"])):
            raise AssertionError(f"{row['id']}: the reference returns {got!r} for the example, the hand value "
                                 f"is {row['_example']!r}")
        row["tests"] = [{"input": t["input"], "output": o} for t, o in zip(row["tests"], outs)]
    assert len({r["id"] for r in rows}) == len(rows) and len({r["entry_point"] for r in rows}) == len(rows)
    return [{k: v for k, v in r.items() if not k.startswith("_")} for r in rows]


def render(rows: list[dict]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)


def main(argv: list[str] | None = None) -> int:
    import argparse
    ap = argparse.ArgumentParser(description="Build ocaml.jsonl, the OCaml problem set, from the literals in this "
                                 "file (needs ocamlc: expected outputs come from running each reference).")
    ap.add_argument("--check", action="store_true", help="write nothing; fail if ocaml.jsonl is out of date")
    ap.add_argument("--out", type=Path, default=OUT.parent, help="the folder to write ocaml.jsonl to "
                    "(default: data/problems, the shipped set)")
    a = ap.parse_args(argv)
    text, out = render(build()), a.out / OUT.name
    if a.check:
        if not out.exists() or out.read_text(encoding="utf-8") != text:
            print(f"{out} is out of date: run python {Path(__file__).as_posix()}", file=sys.stderr)
            return 1
        print(f"{out} is up to date")
    else:
        out.write_text(text, encoding="utf-8")
        print(f"wrote {out}: {text.count(chr(10))} problems")
    return 0


if __name__ == "__main__":
    sys.exit(main())
