"""How two spelled-out diagnosis texts (:mod:`admitdx.matching.guard_text`) compare, for the guarded
matcher: the contrasts a clinician would never credit.

**Contrasts** (:func:`contrast`): a pair is refused when the two texts name opposite values of one
axis the ICD hierarchy separates — whatever their similarity:

- opposite prefixes on one stem: hypo-/hyper- (hypokalemia ↔ hyperkalemia), brady-/tachy-;
- acuity: one side acute, the other chronic and not acute ("acute on chronic" is both);
- laterality (left, right, bilateral), upper ↔ lower, type 1 ↔ type 2, systolic ↔ diastolic;
- "with X" on one side and "without X" on the other, "non X" against a bare "X" (NSTEMI ↔ STEMI);
- one stem with a different suffix (diverticulitis ↔ diverticulosis, encephalitis ↔ encephalopathy);
- named pairs of distinct conditions one organ apart in wording (fibrillation ↔ flutter,
  intoxication ↔ withdrawal, cervical/thoracic/lumbar), and different stages (CKD stage 3 ↔ 5);
- named axes (organ, organism, cause, substance, resistance, count, place of acquisition, vessel,
  tobacco product, organ system, a respiratory failure's gas), limb and back sites (a limb holds its
  parts), a bleed from the rectum ↔ melena, a status (history of, a relative's history, in
  remission, asymptomatic ↔ active), a device's status against its trouble, status
  epilepticus against a single seizure, and a complication against an "uncomplicated" condition.

What one side's clauses add that the other does not name (a complication, a bleed, a cause) is
:mod:`admitdx.matching.guard_clauses`'s; whether one text names the other with only more detail is
:mod:`admitdx.matching.guard_contained`'s.
"""

from __future__ import annotations

import re

from admitdx.matching.guard_axes import (
    DEGREE,
    DRUG_EVENTS,
    EXCLUSIVE,
    LOWER,
    MALIGNANT,
    MALIGNANT_ENDINGS,
    NAMED_AXES,
    NEOPLASM,
    NUMBERS,
    OPPOSITE_PREFIXES,
    SEIZURE_KIND,
    SEIZURE_WORDS,
    SITES,
    SUBSTANCES,
    UPPER,
)
from admitdx.matching.guard_text import QUALIFIERS, guard_expand
from admitdx.matching.normalize import expand_diagnosis

#: a seizure that does not stop (G40.-01, G41, ICD-9 345.3 "grand mal status", MIMIC's GRAND MAL STATUS
#: read as "generalized convulsive status") against a single seizure
_STATUS_EPILEPTICUS = re.compile(r"\bstatus epilepticus\b|\b(?:convulsive|grand mal) status\b")
_NO_STATUS = re.compile(r"\b(?:without|no) (?:mention of )?status epilepticus\b")


def _seizure(word: str) -> bool:
    return word.startswith(SEIZURE_WORDS)


#: a psychosis or disorder ICD says is not due to a substance, against one a substance induced
_NO_SUBSTANCE = re.compile(r"\bnot due to (?:a )?substance\b")
_SUFFIXES = ("itis", "osis", "iasis", "opathy", "ectomy")
_ROMAN = {"i": "1", "ii": "2", "iii": "3", "iv": "4", "v": "5"}
_STAGE = re.compile(r"\b(?:stage|kidney disease) (\d|i{1,3}|iv|v)\b")  # "CKD 4" is stage 4
#: a range of stages: "stage 1-4", I12.9's "stage 1 through stage 4", 403.90's "stage I through stage IV"
_RANGE = re.compile(r"\bstage (\d|i{1,3}|iv|v) (?:through |to )?(?:stage )?(\d|i{1,3}|iv|v)\b")
_TYPE = re.compile(r"\btype (1|2|i|ii|a|b)\b")
_HEPATITIS = re.compile(r"\bhepatitis ([a-e])\b")  # hepatitis A ↔ hepatitis C: two viruses, two codes
#: a spinal level (C6, T12, L4) before the spine rule spells it out: two levels are two injuries
_LEVEL = re.compile(r"\b([ctl]\d{1,2})\b")
_ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth",
             "eleventh", "twelfth")  # fmt: skip
_ORDINAL_LEVEL = re.compile(rf"\b({'|'.join(_ORDINALS)}) (cervical|thoracic|lumbar)\b")
#: a condition's status other than active disease: a history of it (Z85.3 personal history of breast
#: cancer ↔ C50.9) or its remission (F10.11 ↔ F10.10); "not having achieved remission" is active
_STATUS = (
    # a past condition: its history, or its late effects (I69 "sequelae of", "following cerebral
    # infarction"), against the acute one (I63)
    (
        "history",
        re.compile(
            r"\b(?:history|hx|in the past|prior|previous|former|old|remote|survivor|late effects?"
            r"|sequelae?)\b"
            r"|\bfollowing (?:\w+ ){0,2}(?:infarction|hemorrhage|cerebrovascular|stroke)\b"
            r"|\b(?:after|since|post) (?:an? |the )?(?:old )?(?:stroke|cerebral infarction)\b"
        ),
    ),
    # a relative's history (Z80-Z84) is not the patient's own (Z85-Z87): "family history" is both
    ("family", re.compile(r"\bfamily (?:history|hx)\b|\bfamilial history\b")),
    # "in remission", "in molecular remission"; an addiction's remission said as sobriety
    ("remission", re.compile(r"\bremission\b|\bsober\b|\bsobriety\b")),
    # Z21 asymptomatic HIV ("HIV positive NOS", its inclusion term) ↔ B20 HIV disease, AIDS
    ("asymptomatic", re.compile(r"\basymptomatic\b|\bhuman immunodeficiency virus positive\b")),
)
#: a device's or a procedure's status (Z95.0 presence of cardiac pacemaker, Z89 acquired absence, "s/p",
#: "in situ", "in place"), against a device's trouble (T82.1- "pacemaker lead malfunction")
_DEVICE_STATUS = re.compile(
    r"\bpresence of\b|\bstatus post\b|(?<!carcinoma )(?<!melanoma )\bin situ\b|\bin place\b"
    r"|\bacquired absence\b|\b(?:pacemaker|defibrillator|device|implant|graft|stent) status\b"
)
_DEVICE_TROUBLE = re.compile(
    r"\b(?:malfunction|dislodg|displace|mechanical complication|occlu|clotted|infected|erosion|breakdown)"
)
_NOT_IN_REMISSION = re.compile(r"\b(?:not|without mention of) (?:having )?(?:achieved?|in) remission\b")
#: words ending like these name a condition; two of them on one stem (a shared beginning of at least
#: :data:`_KINDRED_STEM` letters) are two conditions (bronchiolitis ↔ bronchiectasis)
_KINDRED_ENDINGS = ("itis", "osis", "asis", "emia", "oma", "pathy", "algia", "plasia", "trophy")
_KINDRED_STEM = 6


def _inflamed(words: set[str]) -> set[str]:
    return {w for w in words if w.endswith("itis") and len(w) > 6}


def _other_inflammation(sa: set[str], sb: set[str]) -> str | None:
    """Both texts name an inflamed organ, and no organ of one is named (or ends a compound) in the
    other: nephritis ↔ neuritis, cholecystitis ↔ cholangitis; tracheobronchitis ↔ bronchitis stays."""
    ia, ib = _inflamed(sa), _inflamed(sb)
    if ia and ib and not any(x.endswith(y) or y.endswith(x) for x in ia for y in ib):
        return f"{'/'.join(sorted(ia))} vs {'/'.join(sorted(ib))}"
    return None


def _pre(ea: str, eb: str) -> str | None:
    """A word on one side and the same word with "pre" on the other: preeclampsia ↔ eclampsia,
    prediabetes ↔ diabetes, presyncope ↔ syncope, "pre-eclampsia" (read as two words) too: the
    forerunner is not the condition."""

    def joined(text: str) -> set[str]:
        return set(re.sub(r"\bpre (?=\w{4})", "pre", text).split())

    for x, y in ((ea, eb), (eb, ea)):
        joined_x, bare = joined(x), joined(y)
        for w in joined_x:
            if w.startswith("pre") and len(w) > 6 and w[3:] in bare and w[3:] not in joined_x:
                return f"{w} vs {w[3:]}"
    return None


def _levels(text: str) -> set[str]:
    """Spinal levels: C6, or "seventh cervical vertebra" (c7)."""
    expanded = expand_diagnosis(text)
    spelled = {f"{m[1][0]}{_ORDINALS.index(m[0]) + 1}" for m in _ORDINAL_LEVEL.findall(expanded)}
    return set(_LEVEL.findall(expanded)) | spelled


def _acuity(words: list[str]) -> tuple[bool, bool]:
    """Acute, chronic: an exacerbation, a flare, a decompensation and a new onset are acute ("COPD
    exacerbation" ↔ "AECOPD", "new-onset atrial fibrillation" ↔ "chronic atrial fibrillation")."""
    acute = bool({"acute", "exacerbation", "flare", "decompensated", "decompensation"} & set(words))
    joined = " ".join(words)
    acute = acute or "new onset" in joined
    # "chronic obstructive pulmonary disease" is a name, not an acuity: its exacerbation is still COPD
    return acute, "chronic" in joined.replace("chronic obstructive", "").split()


_UNCOMPLICATED = re.compile(r"\buncomplicated\b|\bwithout (?:mention of )?complications?\b")
#: what names a complication of a disease without its own "with" clause ("opioid withdrawal" ↔ opioid
#: dependence, uncomplicated F11.20; "thyroid storm" ↔ thyrotoxicosis without crisis or storm)
_COMPLICATION_WORDS = ("withdraw", "overdose", "poisoning", "intoxica", "storm", "crisis", "coma",
                       "ketoacidosis", "hyperosmola", "delirium", "gangren")  # fmt: skip
#: a disease's status named by its own stem: status asthmaticus (J45.x2) ↔ asthma, uncomplicated (J45.x9)
_STATUS_OF = ("asthmaticus", "epilepticus")


def _beyond_uncomplicated(a: str, b: str) -> str | None:
    """``a`` says its condition is uncomplicated ("Type 2 diabetes mellitus without complications"
    E11.9, MIMIC's "DIABETES UNCOMPL", "Opioid dependence, uncomplicated") and ``b``, which does not,
    names a complication ``a`` lacks: a "with" clause, or a complication's own word
    (:data:`_COMPLICATION_WORDS`). ICD codes the complicated disease apart (E11.65, E10.3-, F11.23),
    so the two are different diagnoses. A second condition word alone is not one: "Crohn's ileitis"
    is Crohn's disease without complications (K50.00 ↔ K50.90)."""
    if not _UNCOMPLICATED.search(a) or _UNCOMPLICATED.search(b):
        return None
    named = {w[:5] for w in a.split()}
    clauses = re.findall(r"\bwith (?:mention of )?((?:(?!with\b|without\b)\w+ ?)+)", b)
    added = [w for clause in clauses for w in clause.split() if w not in QUALIFIERS and w[:5] not in named]
    added += [w for w in b.split() if w[:5] not in named and w.startswith(_COMPLICATION_WORDS)]
    added += [w for w in b.split() if w in _STATUS_OF and w not in a.split()]
    return f"uncomplicated vs {added[0]}" if added else None


def _with_without(a: str, b: str) -> str | None:
    """A clause ``a`` opens with "without X" and ``b`` with "with X", X compared by its first five
    letters past "mention of" (MIMIC's "WITHOUT BEHAVIROAL DISTURBANCE" ↔ "with behavioural …")."""
    without = {m[:5]: m for m in re.findall(r"\bwithout (?:mention of )?(\w+)", a)}
    clauses = re.findall(r"\bwith (?:mention of )?((?:(?!with\b|without\b)\w+ ?)+)", b)
    # every word of a "with" clause: "with unstable angina" ↔ "without angina"; "with no loss of
    # consciousness" is a denial, as "without loss of consciousness"
    with_ = {w[:5] for clause in clauses if clause.split()[0] not in ("no", "not") for w in clause.split()}
    shared = sorted(set(without) & with_)
    return without[shared[0]] if shared else None


def _drug_event(text: str, words: set[str]) -> str | None:
    """What a drug did, by :data:`DRUG_EVENTS` (poisoning, adverse effect, underdosing); None for a
    text that says "toxicity": the ICD-10-CM Index sends "Toxicity" to the Table of Drugs, where it
    is a poisoning or an adverse effect by circumstance (the term table spells it "poisoning")."""
    if re.search(r"\btoxic", text.lower()):
        return None
    events = {DRUG_EVENTS[w] for w in words if w in DRUG_EVENTS}
    return events.pop() if len(events) == 1 else None


_UNCONTROLLED = re.compile(r"\b(?:uncontrolled|poorly controlled|out of control)\b")
_CONTROLLED = re.compile(r"(?<!poorly )\bcontrolled\b")


def _control(expanded: str) -> str | None:
    """Whether a text says its disease is controlled or uncontrolled (ICD-9-CM's fifth digit, 250.00
    ↔ 250.02; ICD-10-CM's "with hyperglycemia" E11.65 for uncontrolled); None when it says neither,
    or only ICD-9-CM's "not stated as uncontrolled", which leaves it open."""
    text = re.sub(r"\bnot stated as uncontrolled\b", " ", expanded)
    if _UNCONTROLLED.search(text):
        return "uncontrolled"
    return "controlled" if _CONTROLLED.search(text) else None


def _status(expanded: str) -> frozenset[str]:
    text = _NOT_IN_REMISSION.sub(" ", expanded)
    return frozenset(name for name, pattern in _STATUS if pattern.search(text))


def _sites(words: set[str]) -> set[tuple[str, ...]]:
    """The limb and body sites a text names; the neck of a bone (femoral neck) is no neck."""
    bone = bool(words & {"femur", "femoral", "humerus", "humeral", "radius", "radial", "bladder", "tooth"})
    found = {SITES[w] for w in words if w in SITES and not (w == "neck" and bone)}
    if {"ankle", "foot"} <= words:  # ICD-10-CM's joint site "ankle and foot" (M10.07-) holds the toes
        found.add(SITES["toe"])
    if words & {"extremity", "extremities", "limb", "limbs"}:  # "left upper extremity" (I82.62-)
        found |= {(side,) for word, side in (("upper", UPPER), ("lower", LOWER)) if word in words}
    return found


def _other_site(sa: set[str], sb: set[str]) -> str | None:
    """Both texts name a limb site and no site of one holds (or is) a site of the other."""
    pa, pb = _sites(sa), _sites(sb)
    if pa and pb and not any(x[: len(y)] == y or y[: len(x)] == x for x in pa for y in pb):
        return f"site {'/'.join(sorted(x[-1] for x in pa))} vs {'/'.join(sorted(y[-1] for y in pb))}"
    return None


def _kindred(sa: set[str], sb: set[str]) -> str | None:
    """Two condition words on one stem, neither ending the other (bronchiolitis ↔ bronchiectasis,
    lymphadenopathy ↔ lymphadenitis; tracheobronchitis ↔ bronchitis is the same condition, closer)."""
    for x in sa - sb:
        for y in sb - sa:
            if (
                x.endswith(_KINDRED_ENDINGS)
                and y.endswith(_KINDRED_ENDINGS)
                and x[:_KINDRED_STEM] == y[:_KINDRED_STEM]
                and not (x.endswith(y) or y.endswith(x))
            ):
                return f"{x} vs {y}"
    return None


_DENIAL = re.compile(r"\b(?:without|no|not)\b((?:(?!\bwith\b|\bwithout\b)[\w ])*)")  # "not bleeding"


def _denied(a: str, b: str) -> str | None:
    """A clause ``a`` denies ("without fracture", "without mention of hemorrhage") whose every content
    word ``b`` names outside a denial of its own ("no loss of consciousness"): rib contusion without
    fracture ↔ fracture of ribs, calculus of gallbladder without cholecystitis ↔ cholecystitis;
    not "without acute cor pulmonale" ↔ acute pulmonary embolism (b names no cor pulmonale)."""
    named = {w[:5] for w in _DENIAL.sub(" ", re.sub(r"\bnon \w+", " ", b)).split()}  # "non bleeding" too
    if "encep" in named:
        named.add("coma")  # ICD's hepatic "coma" is hepatic encephalopathy (K72.90 "without coma")
    for clause in _DENIAL.findall(a):
        for alternative in clause.split(" or "):  # "without thyrotoxic crisis or storm": either one
            words = [w for w in alternative.split() if w not in QUALIFIERS | {"mention"}]
            if words and {w[:5] for w in words} <= named:  # by their beginnings: ruptured ↔ rupture
                return " ".join(words)
    return None


def _non(a: str, b: str) -> str | None:
    """A word negated by "non" in ``a`` and named bare in ``b`` (non st elevation ↔ st elevation;
    nonruptured ↔ ruptured aneurysm, nontoxic ↔ toxic goiter, nonalcoholic ↔ alcoholic)."""
    for word in a.split():  # named bare: not "non infectious" against "noninfectious"
        if (
            word.startswith("non")
            and len(word) > 6
            and re.search(rf"(?<!\bnon )\b{re.escape(word[3:])}\b", b)
        ):
            return word[3:]
    for word in re.findall(r"\bnon (\w+)", a):
        if re.search(rf"(?<!non )(?<!without )(?<!no )\b{re.escape(word)}\b", b) and not re.search(
            rf"\bnon {re.escape(word)}\b", b
        ):
            return word
    return None


def _numbered(pattern: re.Pattern[str], text: str) -> set[str]:
    """The numbers a pattern finds, a range read whole ("stage 1-4" → 1, 2, 3, 4); an end-stage renal
    disease is a chronic kidney disease's stage 5 (N18.6 against I12.9's "stage 1-4")."""
    found = {_ROMAN.get(m, m) for m in pattern.findall(text)}
    if pattern is _STAGE and re.search(r"\bend stage (?:renal|kidney)\b", text):
        found.add("5")
    for low, high in _RANGE.findall(text):
        found |= {str(n) for n in range(int(_ROMAN.get(low, low)), int(_ROMAN.get(high, high)) + 1)}
    return found


def contrast(a: str, b: str) -> str | None:
    """Why two texts name different conditions on a contrast axis (see the module docstring), or None."""
    ea, eb = guard_expand(a), guard_expand(b)
    wa, wb = ea.split(), eb.split()
    sa, sb = set(wa), set(wb)
    for low, high in OPPOSITE_PREFIXES:
        for x, y in ((sa, sb), (sb, sa)):
            lows = {w[len(low) :][:4] for w in x if w.startswith(low) and len(w) > len(low) + 2}
            highs = {w[len(high) :][:4] for w in y if w.startswith(high) and len(w) > len(high) + 2}
            if lows & highs:
                return f"opposite prefixes: {low}- vs {high}-"
    (acute_a, chronic_a), (acute_b, chronic_b) = _acuity(wa), _acuity(wb)
    if (acute_a and not acute_b and chronic_b) or (acute_b and not acute_a and chronic_a):
        return "acuity: acute vs chronic"
    for axis in EXCLUSIVE:
        ha, hb = axis & sa, axis & sb
        if ha and hb and not ha & hb:
            return f"{'/'.join(sorted(ha))} vs {'/'.join(sorted(hb))}"
    if why := _other_count(sa, sb) or _origin(ea, eb, sa, sb) or _bleed_way(a, b):
        return why
    ca, cb = (set(_MALIGNANCY_CAUSE.sub(" ", e).split()) for e in (ea, eb))
    if _malignant(ca) != _malignant(cb):
        return "malignancy named on one side only"
    for what, named in NAMED_AXES:
        oa, ob = {named[w] for w in sa if w in named}, {named[w] for w in sb if w in named}
        if oa and ob and not oa & ob:
            return f"{what} {'/'.join(sorted(oa))} vs {'/'.join(sorted(ob))}"
    if (event_a := _drug_event(a, sa)) and (event_b := _drug_event(b, sb)) and event_a != event_b:
        return f"drug event {event_a} vs {event_b}"
    for what, kinds, named in (
        ("degree", DEGREE, lambda w: w == "block"),
        ("seizure", SEIZURE_KIND, _seizure),
    ):
        if any(map(named, sa)) and any(map(named, sb)):
            da, db = {kinds[w] for w in sa if w in kinds}, {kinds[w] for w in sb if w in kinds}
            if da and db and not da & db:
                return f"{what} {'/'.join(sorted(da))} vs {'/'.join(sorted(db))}"  # fmt: skip
    if any(map(_seizure, sa)) and any(map(_seizure, sb)):
        ea_status, eb_status = (bool(_STATUS_EPILEPTICUS.search(_NO_STATUS.sub(" ", e))) for e in (ea, eb))
        if ea_status != eb_status:
            return "status epilepticus on one side only"
    la, lb = _levels(a), _levels(b)
    if la and lb and not la & lb:
        return f"level {'/'.join(sorted(la))} vs {'/'.join(sorted(lb))}"
    if why := _other_inflammation(sa, sb) or _pre(ea, eb) or _other_site(sa, sb) or _kindred(sa, sb):
        return why
    for x, y in ((ea, eb), (eb, ea)):
        if _DEVICE_STATUS.search(x) and _DEVICE_TROUBLE.search(y) and not _DEVICE_STATUS.search(y):
            return "a device's status vs its trouble"
    if (control_a := _control(ea)) and (control_b := _control(eb)) and control_a != control_b:
        return f"{control_a} vs {control_b}"
    if (status_a := _status(ea)) != (status_b := _status(eb)):
        return f"status: {'/'.join(sorted(status_a)) or 'active'} vs {'/'.join(sorted(status_b)) or 'active'}"
    for pattern, what in ((_STAGE, "stage"), (_TYPE, "type"), (_HEPATITIS, "hepatitis")):
        na, nb = _numbered(pattern, ea), _numbered(pattern, eb)
        if na and nb and not na & nb:
            return f"{what} {'/'.join(sorted(na))} vs {what} {'/'.join(sorted(nb))}"
    for x, y in ((ea, eb), (eb, ea)):
        if word := _with_without(x, y) or _denied(x, y):
            return f"with vs without {word}"
        if why := _beyond_uncomplicated(x, y):
            return why
        if word := _non(x, y):
            return f"non-{word} vs {word}"
    for x in sa:
        for y in sb:
            if x != y and _same_stem_other_suffix(x, y):
                return f"{x} vs {y}"
            if x[:5] == y[:5] and ((_low_count(x) and _high_count(y)) or (_low_count(y) and _high_count(x))):
                return f"{x} vs {y}"  # a cell count low ↔ high: neutropenia ↔ neutrophilia (D70 ↔ D72.82-)
    return None


#: a bleed's way out, read in the text as written (the term table spells hematochezia and "blood in
#: stool", which may be either, alike): bright red blood from the rectum (K62.5) ↔ melena, the upper
#: tract's black stool (K92.1). The blind writers labelled all seven hematochezia ↔ melena pairs of
#: the used files different, though the dictionary reading codes both K92.1
_RECTAL_BLEED = re.compile(
    r"\b(?:ha?ematochezia|brbpr|bright red blood|rectal (?:bleed|hemorrhage)"
    r"|hemorrhage of (?:anus and )?rectum)"
)
_MELENA = re.compile(r"\b(?:mela?ena|black (?:tarry )?stools?|tarry stools?)\b")


def _bleed_way(a: str, b: str) -> str | None:
    """One text names a bleed from the rectum and the other melena (:data:`_RECTAL_BLEED`)."""
    for x, y in ((a.lower(), b.lower()), (b.lower(), a.lower())):
        if (
            _RECTAL_BLEED.search(x)
            and _MELENA.search(y)
            and not _MELENA.search(x)
            and not _RECTAL_BLEED.search(y)
        ):
            return "rectal bleeding vs melena"
    return None


def _low_count(word: str) -> bool:
    return word.endswith("penia")


def _high_count(word: str) -> bool:
    return word.endswith(("philia", "cytosis"))


def _other_count(sa: set[str], sb: set[str]) -> str | None:
    """Two counts that cannot both hold: one ↔ multiple, four ↔ seven; "multiple" fits any count of
    two or more."""
    na, nb = {NUMBERS[w] for w in sa if w in NUMBERS}, {NUMBERS[w] for w in sb if w in NUMBERS}
    if not na or not nb or na & nb:
        return None
    if (0 in na and max(nb) >= 2) or (0 in nb and max(na) >= 2):
        return None
    a, b = ("/".join("several" if n == 0 else str(n) for n in sorted(ns)) for ns in (na, nb))
    return f"count {a} vs {b}"


def _origin(ea: str, eb: str, sa: set[str], sb: set[str]) -> str | None:
    """A secondary malignancy on one side and, on the other, a malignancy neither secondary nor
    metastatic (renal cell carcinoma C64 ↔ secondary malignant neoplasm of kidney C79.0); a condition
    "not due to a substance" against one a substance induced (F29 ↔ F15.959)."""
    spread = {"secondary", "metastatic", "metastasis", "metastases", "carcinomatosis"}
    if _malignant(sa) and _malignant(sb):
        for x, y in ((sa, sb), (sb, sa)):
            if "secondary" in x and not y & spread:
                return "secondary vs primary malignancy"
    for x, y in ((ea, sb), (eb, sa)):
        if _NO_SUBSTANCE.search(x) and (y & set(SUBSTANCES) or "induced" in y):
            return "not due to a substance vs induced"
    return None


#: a malignancy named as a cause ("hypercalcemia of malignancy"): the condition is the other side's
_MALIGNANCY_CAUSE = re.compile(
    r"(?<!history )(?<!hx )\b(?:of|due to|from) (?:malignancy|cancer|malignant neoplasm)\b(?! of)"
    # a treatment's name: D70.1 "agranulocytosis secondary to cancer chemotherapy"
    r"|\b(?:cancer|malignant neoplasm) chemotherapy\b"
    # a malignancy as the cause: "cancer related anemia" (D63.0 "Anemia in neoplastic disease")
    r"|\b(?:cancer|malignancy|malignant neoplasm|tumor) (?:related|associated|induced)\b"
    # G89.3 "Neoplasm related pain", said as cancer pain
    r"|\bin neoplastic disease\b|\bneoplasm related\b|\b(?:cancer|tumor|malignant neoplasm) pain\b"
    # "malignant" that names no neoplasm: I10's inclusion term "(malignant) hypertension",
    # T88.3 malignant hyperthermia, G21.0 neuroleptic malignant syndrome, H60.2 malignant otitis externa,
    # and J91.0 malignant pleural effusion (the effusion, coded beside its neoplasm)
    r"|\bmalignant (?=hypertension|hyperthermia|syndrome|otitis|pleural effusion)"
)


def _malignant(words: set[str]) -> bool:
    named = words & (MALIGNANT - NEOPLASM if "benign" in words else MALIGNANT)
    return bool(named) or any(w.endswith(MALIGNANT_ENDINGS) for w in words)


def _same_stem_other_suffix(x: str, y: str) -> bool:
    for sx in _SUFFIXES:
        for sy in _SUFFIXES:
            if sx != sy and x.endswith(sx) and y.endswith(sy):
                stem_x, stem_y = x[: -len(sx)], y[: -len(sy)]
                if len(stem_x) >= 4 and stem_x == stem_y:
                    return True
    return False
