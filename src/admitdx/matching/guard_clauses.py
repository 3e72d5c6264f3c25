"""What one side's clauses add that the other does not name, for the guarded matcher, each a reason
the pair names two diagnoses. All but the last are one-way (a prediction more specific than its
reference is not refused by them):

- a "with X" complication (:func:`uncovered_complication`: type 2 diabetes ↔ type 2 diabetes mellitus
  with foot ulcer);
- a complication in the reference's own words (:func:`uncovered_sequel`: esophageal varices ↔
  variceal hemorrhage, aortic aneurysm ↔ dissecting aneurysm);
- a cause the prediction names alone (:func:`only_the_cause`: pneumonia ↔ sepsis secondary to
  pneumonia);
- a complication ICD codes as its disease's "with" child, named by the prediction alone
  (:func:`added_complication`: thyroid storm ↔ thyrotoxicosis).
"""

from __future__ import annotations

import re

from admitdx.matching.guard_axes import SITES
from admitdx.matching.guard_text import QUALIFIERS, content_words, guard_expand

#: complications a reference names in its own words rather than a "with" clause (esophageal varices ↔
#: variceal hemorrhage, aortic aneurysm ↔ dissecting aneurysm, alcohol dependence ↔ alcohol withdrawal
#: delirium): the word beginnings that name each, and those a prediction may name it by instead (a
#: bleed by its form: hematoma, hematemesis, hematochezia). One-way, like :func:`uncovered_complication`
_SEQUELS = {
    "hemorrhage": (("hemor", "bleed"), ("hemor", "bleed", "hemat", "blood", "melena")),
    "perforation": (("perfor",), ("perfor", "ruptur")),
    "rupture": (("ruptur",), ("ruptur", "perfor")),
    "dissection": (("dissect",), ("dissect", "tear", "torn")),
    "gangrene": (("gangren",), ("gangren", "necro")),
    "withdrawal": (("withdraw",), ("withdraw",)),
    "ketoacidosis": (("ketoacidosis",), ("ketoacidosis",)),  # diabetes ↔ DIAB KETOACIDOSIS IDDM
    "delirium": (("delirium",), ("delirium", "confus")),  # an acute confusional state is one
    # alcohol withdrawal ↔ alcohol withdrawal seizure, hypoglycemia ↔ hypoglycemic seizure
    "seizure": (("convuls", "seizure"), ("convuls", "seizure", "epilep", "ictal", "postictal")),
}


def uncovered_complication(prediction: str, reference: str) -> str | None:
    """A "with X" the reference names and the prediction does not (type 2 diabetes ↔ type 2 diabetes
    mellitus with foot ulcer; sepsis ↔ severe sepsis with septic shock): the reference's diagnosis
    is the disease *and* that complication. One-way: a prediction more specific than its reference
    ("atrial fibrillation with RVR" ↔ "atrial fibrillation") is not refused by it. A clause counts as
    named when the prediction has one of its words, compared by their first five letters
    ("hypoxic" names "with hypoxia"); the reference's own words before "with" and stage numbers are
    not a complication."""
    predicted = guard_expand(prediction)
    words_said = predicted.split()
    said = {w[:5] for w in words_said}
    if re.search(r"\b(?:uncontrolled|poorly controlled|out of control)\b", predicted):
        # ICD-10-CM Index: "Diabetes, uncontrolled — code to Diabetes, by type, with hyperglycemia"
        said.add("hyper")
    if re.search(r"\bacute on chronic\b|\bflare\b|\bcrisis\b", predicted):
        said.add("exace")  # an exacerbation named otherwise ("AECOPD" reads "acute on chronic …")
    if "encep" in said:
        said.add("coma")  # ICD's "with (hepatic) coma" is hepatic encephalopathy (K72.01, B18.2 + K76.82)
    expanded = guard_expand(_essential(reference))
    main = {w[:5] for w in re.split(r"\bwith(?:out)?\b", expanded)[0].split()}
    # "unspecified whether with hypoxia or hypercapnia" (J96.00) leaves the clause open: no complication
    expanded = re.sub(r"\bunspecified whether with\b", "unspecified whether", expanded)
    for clause in re.findall(r"\bwith ((?:(?!with\b|without\b)\w+ ?)+)", expanded):
        # the disease's own words ("type 2 diabetes mellitus with diabetic …") and stages do not name
        # a complication
        skip = QUALIFIERS | {"stage", "through", "closed", "i", "ii", "iii", "iv", "v"}
        if clause.split()[0] in ("no", "not"):
            continue  # "with no loss of consciousness" denies, as "without" does
        if {"manifestation", "manifestations", "severity", "symptoms", "conditions"} & set(clause.split()):
            continue  # ICD's residual clauses ("with other respiratory manifestations", "with
            # unspecified severity") name no complication: they are the disease as usually seen
        if _KIND.match(clause):
            continue
        words = [w for w in clause.split() if w not in skip and not w.isdigit() and w[:5] not in main]
        # a site names no complication: "with foot ulcer" is named by an ulcer, not by "foot"
        named = [w for w in words if w not in SITES] or words
        if words and not any(w[:5] in said or _ends(w, words_said) for w in named):
            return f"reference adds with {' '.join(words)}"
    return None


#: "with" clauses that name the disease's kind, not a complication: a respiratory failure's gas
#: (J96.01 "with hypoxia", J96.02 "with hypercapnia") and an acute kidney failure's lesion (N17.0
#: "with tubular necrosis"). A clinician credits the parent for them: the blind writers labelled
#: all 27 such pairs of the forty used files same, none different
_KIND = re.compile(
    r"(?:lesion of )?(?:tubular|cortical|medullary|papillary) necrosis\b|(?:hypoxia|hypercapnia)\b"
)
_PARENTHESES = re.compile(r"\([^()]*\)")


def _essential(title: str) -> str:
    """A title less its parenthesised words: ICD's nonessential modifiers, which a diagnosis need not
    name ("Essential (hemorrhagic) thrombocythemia" is D47.3 with or without a bleed)."""
    return _PARENTHESES.sub(" ", title)


def _ends(word: str, said: list[str]) -> bool:
    """Whether a word said ends the clause's word or the reverse (neuropathy ↔ polyneuropathy)."""
    return any(len(w) > 5 and (word.endswith(w) or w.endswith(word)) for w in said)


#: complications ICD codes as a disease's "with" child, as a prediction says them (a pattern's
#: beginning) and as a reference may name them: E05.01 thyrotoxicosis with crisis or storm (a thyroid
#: storm is spelled "thyrotoxic crisis" by the term table), E11.10 diabetes with ketoacidosis, E11.00
#: with hyperosmolarity, K72.01 hepatic failure with coma (ICD's hepatic coma is hepatic
#: encephalopathy), I70.26- atherosclerosis with gangrene
_ADDED = {"storm": "storm|crisis", "thyrotoxic crisis": "storm|crisis", "ketoacido": "ketoacido",
          "hyperosmola": "hyperosmola", "coma": "coma|encep", "gangren": "gangren"}  # fmt: skip


def added_complication(prediction: str, reference: str) -> str | None:
    """The prediction names a complication (:data:`_ADDED`) the reference does not: thyroid storm ↔
    thyrotoxicosis, hyperosmolar hyperglycemic state ↔ type 2 diabetes with hyperglycemia. The
    complicated disease is its own diagnosis (the labelling rule's "disease vs its complication"); a
    prediction naming both is compared by its words as usual."""
    said, named = guard_expand(prediction), guard_expand(reference)
    for stem, names in _ADDED.items():
        if re.search(rf"\b{stem}", said) and not re.search(rf"\b(?:{names})", named):
            return f"prediction adds {stem}"
    return None


#: "secondary to", not ICD's "due to": "C. diff" names "Enterocolitis due to Clostridium difficile"
_CAUSED_BY = re.compile(r"\b(?:secondary to|caused by|following)\b")


def only_the_cause(prediction: str, reference: str) -> str | None:
    """The prediction names only what the reference says caused its condition: "pneumonia" ↔ "Sepsis
    secondary to pneumonia", "stroke" ↔ "Hemiplegia following stroke". A cause is not the condition
    it caused (the labelling rule's "disease vs its complication or cause")."""
    parts = _CAUSED_BY.split(guard_expand(_essential(reference)), maxsplit=1)
    if len(parts) < 2:
        return None
    head, cause = (frozenset(w for w in part.split() if w not in QUALIFIERS) for part in parts)
    said = content_words(prediction)
    if said and said <= cause and head - said:
        return f"names only the cause ({' '.join(sorted(said))})"
    return None


def uncovered_sequel(prediction: str, reference: str) -> str | None:
    """The reference names a complication (:data:`_SEQUELS`) the prediction does not: esophageal
    varices ↔ esophageal variceal hemorrhage (ICD-10-CM separates them, I85.00 ↔ I85.01), duodenal
    ulcer ↔ duodenal ulcer with perforation, abdominal aortic aneurysm ↔ dissecting aneurysm."""
    said = guard_expand(prediction).split()
    # a complication the reference denies ("without hemorrhage", "without perforation") is none
    denied = re.compile(r"\bwithout (?:mention of )?(?:\w+ or )?\w+")
    kept = denied.sub("", guard_expand(_essential(reference))).split()
    said = [w for w in said if not w.startswith("hemorrhoid")]  # a hemorrhoid is a vein, not a bleed
    kept = [w for w in kept if not w.startswith("hemorrhoid")]
    for name, (names, instead) in _SEQUELS.items():
        if any(w.startswith(names) for w in kept) and not any(w.startswith(instead) for w in said):
            return f"reference adds {name}"
    return None
