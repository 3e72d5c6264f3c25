"""The documented MIMIC-IV table schemas: column names in MIMIC's order, DuckDB types, NOT NULL keys.

Source: ``docs/mimic-iv-schema.md`` (itself from MIT-LCP/mimic-code ``create.sql`` and the demo
headers). Each table is written as a compact DDL line, ``name TYPE [NN] [OPT]``:

- ``NN``  the column is NOT NULL in MIMIC's DDL; ``data check`` reports nulls in it.
- ``OPT`` the column may be absent without making the table unusable (it was added in a later
  release, e.g. the ``*_provider_id`` columns of v2.2, or it is one of the variable-count ECG
  ``report_N`` statements). Every other documented column is *required*.

Types are DuckDB types chosen so that a build never mis-reads a value: ids are integers, ICD / NDC /
GSN codes stay text (leading zeros matter: ICD-9 ``'0010'``), ``*time`` columns are TIMESTAMP and
``*date`` columns DATE (DuckDB accepts ``2180-08-06 00:00:00`` as a DATE). The two exceptions follow
the DDL, where a ``*date`` column carries a time of day (microbiologyevents ``chartdate`` /
``storedate`` are TIMESTAMP(0) in MIMIC).

Where the published DDL is known to be wrong against the data (``edstays.hadm_id`` and
``radiology.hadm_id`` are nullable although the docs say NOT NULL) the data wins.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Column:
    name: str
    type: str
    not_null: bool = False
    optional: bool = False


@dataclass(frozen=True)
class TableSchema:
    module: str
    name: str
    columns: tuple[Column, ...]
    expected: bool  # part of the module as released (missing → module reported "partial")
    required: bool  # a MIMIC root is unusable without it (only tables of required modules)

    @property
    def qualified(self) -> str:
        return f"{self.module}.{self.name}"

    @property
    def types(self) -> dict[str, str]:
        return {c.name: c.type for c in self.columns}

    @property
    def required_columns(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.columns if not c.optional)

    @property
    def not_null_columns(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.columns if c.not_null)


REQUIRED_MODULES = ("hosp", "ed")
OPTIONAL_MODULES = ("note", "ecg", "echo", "icu")
MODULES = REQUIRED_MODULES + OPTIONAL_MODULES

# module -> table -> (role, DDL). role: "req" required, "exp" expected in the release, "opt" known
# but not part of what admitdx expects (its absence is not reported). INT = INTEGER, TEXT = VARCHAR.
_DDL: dict[str, dict[str, tuple[str, str]]] = {
    "hosp": {
        "patients": (
            "req",
            "subject_id INT NN, gender TEXT NN, anchor_age SMALLINT, anchor_year SMALLINT NN, "
            "anchor_year_group TEXT NN, dod DATE",
        ),
        "admissions": (
            "req",
            "subject_id INT NN, hadm_id INT NN, admittime TIMESTAMP NN, dischtime TIMESTAMP, "
            "deathtime TIMESTAMP, admission_type TEXT NN, admit_provider_id TEXT OPT, "
            "admission_location TEXT, discharge_location TEXT, insurance TEXT, language TEXT, "
            "marital_status TEXT, race TEXT, edregtime TIMESTAMP, edouttime TIMESTAMP, "
            "hospital_expire_flag SMALLINT",
        ),
        "transfers": (
            "req",
            "subject_id INT NN, hadm_id INT, transfer_id INT NN, eventtype TEXT, careunit TEXT, "
            "intime TIMESTAMP, outtime TIMESTAMP",
        ),
        "diagnoses_icd": (
            "req",
            "subject_id INT NN, hadm_id INT NN, seq_num INT NN, icd_code TEXT, icd_version SMALLINT",
        ),
        "d_icd_diagnoses": ("req", "icd_code TEXT NN, icd_version SMALLINT NN, long_title TEXT"),
        "labevents": (
            "req",
            "labevent_id INT NN, subject_id INT NN, hadm_id INT, specimen_id INT NN, itemid INT NN, "
            "order_provider_id TEXT OPT, charttime TIMESTAMP, storetime TIMESTAMP, value TEXT, "
            "valuenum DOUBLE, valueuom TEXT, ref_range_lower DOUBLE, ref_range_upper DOUBLE, flag TEXT, "
            "priority TEXT, comments TEXT",
        ),
        "d_labitems": ("req", "itemid INT NN, label TEXT, fluid TEXT, category TEXT"),
        "omr": (
            "req",
            "subject_id INT NN, chartdate DATE NN, seq_num INT NN, result_name TEXT NN, result_value TEXT NN",
        ),
        "prescriptions": (
            "opt",
            "subject_id INT NN, hadm_id INT NN, pharmacy_id INT NN, poe_id TEXT, poe_seq INT, "
            "order_provider_id TEXT OPT, starttime TIMESTAMP, stoptime TIMESTAMP, drug_type TEXT NN, "
            "drug TEXT NN, formulary_drug_cd TEXT, gsn TEXT, ndc TEXT, prod_strength TEXT, form_rx TEXT, "
            "dose_val_rx TEXT, dose_unit_rx TEXT, form_val_disp TEXT, form_unit_disp TEXT, "
            "doses_per_24_hrs DOUBLE, route TEXT",
        ),
        "microbiologyevents": (
            "opt",
            "microevent_id INT NN, subject_id INT NN, hadm_id INT, micro_specimen_id INT NN, "
            "order_provider_id TEXT OPT, chartdate TIMESTAMP NN, charttime TIMESTAMP, spec_itemid INT NN, "
            "spec_type_desc TEXT NN, test_seq INT NN, storedate TIMESTAMP, storetime TIMESTAMP, "
            "test_itemid INT, test_name TEXT, org_itemid INT, org_name TEXT, isolate_num SMALLINT, "
            "quantity TEXT, ab_itemid INT, ab_name TEXT, dilution_text TEXT, dilution_comparison TEXT, "
            "dilution_value DOUBLE, interpretation TEXT, comments TEXT",
        ),
        "procedures_icd": (
            "opt",
            "subject_id INT NN, hadm_id INT NN, seq_num INT NN, chartdate DATE NN, icd_code TEXT, "
            "icd_version SMALLINT",
        ),
        "d_icd_procedures": ("opt", "icd_code TEXT NN, icd_version SMALLINT NN, long_title TEXT"),
        "services": (
            "opt",
            "subject_id INT NN, hadm_id INT NN, transfertime TIMESTAMP NN, prev_service TEXT, "
            "curr_service TEXT",
        ),
        "drgcodes": (
            "opt",
            "subject_id INT NN, hadm_id INT NN, drg_type TEXT, drg_code TEXT NN, description TEXT, "
            "drg_severity SMALLINT, drg_mortality SMALLINT",
        ),
        "hcpcsevents": (
            "opt",
            "subject_id INT NN, hadm_id INT NN, chartdate DATE NN, hcpcs_cd TEXT NN, seq_num INT NN, "
            "short_description TEXT",
        ),
        "d_hcpcs": ("opt", "code TEXT NN, category SMALLINT, long_description TEXT, short_description TEXT"),
        "provider": ("opt", "provider_id TEXT NN"),
        "poe": (
            "opt",
            "poe_id TEXT NN, poe_seq INT NN, subject_id INT NN, hadm_id INT, ordertime TIMESTAMP NN, "
            "order_type TEXT NN, order_subtype TEXT, transaction_type TEXT, discontinue_of_poe_id TEXT, "
            "discontinued_by_poe_id TEXT, order_provider_id TEXT OPT, order_status TEXT",
        ),
        "poe_detail": (
            "opt",
            "poe_id TEXT NN, poe_seq INT NN, subject_id INT NN, field_name TEXT NN, field_value TEXT",
        ),
        "pharmacy": (
            "opt",
            "subject_id INT NN, hadm_id INT NN, pharmacy_id INT NN, poe_id TEXT, starttime TIMESTAMP, "
            "stoptime TIMESTAMP, medication TEXT, proc_type TEXT NN, status TEXT, entertime TIMESTAMP NN, "
            "verifiedtime TIMESTAMP, route TEXT, frequency TEXT, disp_sched TEXT, infusion_type TEXT, "
            "sliding_scale TEXT, lockout_interval TEXT, basal_rate DOUBLE, one_hr_max TEXT, "
            "doses_per_24_hrs DOUBLE, duration DOUBLE, duration_interval TEXT, expiration_value INT, "
            "expiration_unit TEXT, expirationdate TIMESTAMP, dispensation TEXT, fill_quantity TEXT",
        ),
        "emar": (
            "opt",
            "subject_id INT NN, hadm_id INT, emar_id TEXT NN, emar_seq INT NN, poe_id TEXT, pharmacy_id INT, "
            "enter_provider_id TEXT OPT, charttime TIMESTAMP NN, medication TEXT, event_txt TEXT, "
            "scheduletime TIMESTAMP, storetime TIMESTAMP",
        ),
        "emar_detail": (
            "opt",
            "subject_id INT NN, emar_id TEXT NN, emar_seq INT NN, parent_field_ordinal DOUBLE, "
            "administration_type TEXT, pharmacy_id INT, barcode_type TEXT, reason_for_no_barcode TEXT, "
            "complete_dose_not_given TEXT, dose_due TEXT, dose_due_unit TEXT, dose_given TEXT, "
            "dose_given_unit TEXT, will_remainder_of_dose_be_given TEXT, product_amount_given TEXT, "
            "product_unit TEXT, product_code TEXT, product_description TEXT, product_description_other TEXT, "
            "prior_infusion_rate TEXT, infusion_rate TEXT, infusion_rate_adjustment TEXT, "
            "infusion_rate_adjustment_amount TEXT, infusion_rate_unit TEXT, route TEXT, "
            "infusion_complete TEXT, completion_interval TEXT, new_iv_bag_hung TEXT, "
            "continued_infusion_in_other_location TEXT, restart_interval TEXT, side TEXT, site TEXT, "
            "non_formulary_visual_verification TEXT",
        ),
    },
    "ed": {
        "edstays": (
            "req",
            "subject_id INT NN, hadm_id INT, stay_id INT NN, intime TIMESTAMP NN, outtime TIMESTAMP NN, "
            "gender TEXT NN, race TEXT, arrival_transport TEXT NN, disposition TEXT",
        ),
        "triage": (
            "req",
            "subject_id INT NN, stay_id INT NN, temperature DOUBLE, heartrate DOUBLE, resprate DOUBLE, "
            "o2sat DOUBLE, sbp DOUBLE, dbp DOUBLE, pain TEXT, acuity DOUBLE, chiefcomplaint TEXT",
        ),
        "vitalsign": (
            "req",
            "subject_id INT NN, stay_id INT NN, charttime TIMESTAMP, temperature DOUBLE, heartrate DOUBLE, "
            "resprate DOUBLE, o2sat DOUBLE, sbp INT, dbp INT, rhythm TEXT, pain TEXT",
        ),
        "medrecon": (
            "req",
            "subject_id INT NN, stay_id INT NN, charttime TIMESTAMP, name TEXT, gsn TEXT, ndc TEXT, "
            "etc_rn SMALLINT, etccode TEXT, etcdescription TEXT",
        ),
        "pyxis": (
            "req",
            "subject_id INT NN, stay_id INT NN, charttime TIMESTAMP, med_rn SMALLINT NN, name TEXT, "
            "gsn_rn SMALLINT NN, gsn TEXT",
        ),
        "diagnosis": (
            "req",
            "subject_id INT NN, stay_id INT NN, seq_num INT NN, icd_code TEXT NN, icd_version SMALLINT NN, "
            "icd_title TEXT NN",
        ),
    },
    "note": {
        "discharge": (
            "exp",
            "note_id TEXT NN, subject_id INT NN, hadm_id INT NN, note_type TEXT NN, note_seq SMALLINT NN, "
            "charttime TIMESTAMP NN, storetime TIMESTAMP, text TEXT NN",
        ),
        "radiology": (
            "exp",
            "note_id TEXT NN, subject_id INT NN, hadm_id INT, note_type TEXT NN, note_seq SMALLINT NN, "
            "charttime TIMESTAMP NN, storetime TIMESTAMP, text TEXT NN",
        ),
        "discharge_detail": (
            "exp",
            "note_id TEXT NN, subject_id INT NN, field_name TEXT NN, field_value TEXT NN, "
            "field_ordinal INT NN",
        ),
        "radiology_detail": (
            "exp",
            "note_id TEXT NN, subject_id INT NN, field_name TEXT NN, field_value TEXT NN, "
            "field_ordinal INT NN",
        ),
    },
    "ecg": {
        "record_list": (
            "exp",
            "subject_id INT NN, study_id INT NN, file_name TEXT, ecg_time TIMESTAMP, path TEXT",
        ),
        # report_0 … report_17: machine statements, "variable count, blanks allowed" (schema doc 5.2).
        "machine_measurements": (
            "exp",
            "subject_id INT NN, study_id INT NN, cart_id INT, ecg_time TIMESTAMP, report_0 TEXT, "
            "report_1 TEXT OPT, report_2 TEXT OPT, report_3 TEXT OPT, report_4 TEXT OPT, report_5 TEXT OPT, "
            "report_6 TEXT OPT, report_7 TEXT OPT, report_8 TEXT OPT, report_9 TEXT OPT, report_10 TEXT OPT, "
            "report_11 TEXT OPT, report_12 TEXT OPT, report_13 TEXT OPT, report_14 TEXT OPT, "
            "report_15 TEXT OPT, report_16 TEXT OPT, report_17 TEXT OPT, bandwidth TEXT, filtering TEXT, "
            "rr_interval INT, p_onset INT, p_end INT, qrs_onset INT, qrs_end INT, t_end INT, p_axis INT, "
            "qrs_axis INT, t_axis INT",
        ),
        "waveform_note_links": (
            "opt",
            "subject_id INT NN, study_id INT NN, waveform_path TEXT, note_id TEXT, note_seq INT, "
            "charttime TIMESTAMP",
        ),
    },
    "echo": {
        # PhysioNet file names echo-record-list.csv / echo-study-list.csv ('-' read as '_').
        "echo_record_list": (
            "exp",
            "subject_id INT NN, study_id INT NN, acquisition_datetime TIMESTAMP, dicom_filepath TEXT",
        ),
        "echo_study_list": (
            "exp",
            "subject_id INT NN, study_id INT NN, study_datetime TIMESTAMP, note_id TEXT, note_seq INT, "
            "note_charttime TIMESTAMP",
        ),
        # v1.0 structured measurements (structured-measurement.csv.gz): not in the schema doc; the
        # columns are those EarlyDx's echo section reads. The plural file name is accepted too.
        "structured_measurement": (
            "opt",
            "subject_id INT NN, measurement_datetime TIMESTAMP, measurement TEXT, result TEXT, unit TEXT",
        ),
    },
    "icu": {
        "icustays": (
            "opt",
            "subject_id INT NN, hadm_id INT NN, stay_id INT NN, first_careunit TEXT, last_careunit TEXT, "
            "intime TIMESTAMP, outtime TIMESTAMP, los DOUBLE",
        ),
        "caregiver": ("opt", "caregiver_id INT NN"),
        "d_items": (
            "opt",
            "itemid INT NN, label TEXT NN, abbreviation TEXT NN, linksto TEXT NN, category TEXT NN, "
            "unitname TEXT, param_type TEXT NN, lownormalvalue DOUBLE, highnormalvalue DOUBLE",
        ),
        "chartevents": (
            "opt",
            "subject_id INT NN, hadm_id INT NN, stay_id INT NN, caregiver_id INT OPT, "
            "charttime TIMESTAMP NN, storetime TIMESTAMP, itemid INT NN, value TEXT, valuenum DOUBLE, "
            "valueuom TEXT, warning SMALLINT",
        ),
        "datetimeevents": (
            "opt",
            "subject_id INT NN, hadm_id INT NN, stay_id INT NN, caregiver_id INT OPT, "
            "charttime TIMESTAMP NN, storetime TIMESTAMP, itemid INT NN, value TIMESTAMP NN, valueuom TEXT, "
            "warning SMALLINT",
        ),
        "outputevents": (
            "opt",
            "subject_id INT NN, hadm_id INT NN, stay_id INT NN, caregiver_id INT OPT, "
            "charttime TIMESTAMP NN, storetime TIMESTAMP NN, itemid INT NN, value DOUBLE NN, valueuom TEXT",
        ),
        "ingredientevents": (
            "opt",
            "subject_id INT NN, hadm_id INT NN, stay_id INT, caregiver_id INT OPT, starttime TIMESTAMP NN, "
            "endtime TIMESTAMP NN, storetime TIMESTAMP, itemid INT NN, amount DOUBLE, amountuom TEXT, "
            "rate DOUBLE, rateuom TEXT, orderid INT NN, linkorderid INT, statusdescription TEXT, "
            "originalamount DOUBLE, originalrate DOUBLE",
        ),
        "inputevents": (
            "opt",
            "subject_id INT NN, hadm_id INT NN, stay_id INT, caregiver_id INT OPT, starttime TIMESTAMP NN, "
            "endtime TIMESTAMP NN, storetime TIMESTAMP, itemid INT NN, amount DOUBLE, amountuom TEXT, "
            "rate DOUBLE, rateuom TEXT, orderid INT NN, linkorderid INT, ordercategoryname TEXT, "
            "secondaryordercategoryname TEXT, ordercomponenttypedescription TEXT, "
            "ordercategorydescription TEXT, patientweight DOUBLE, totalamount DOUBLE, totalamountuom TEXT, "
            "isopenbag SMALLINT, continueinnextdept SMALLINT, statusdescription TEXT, originalamount DOUBLE, "
            "originalrate DOUBLE",
        ),
        "procedureevents": (
            "opt",
            "subject_id INT NN, hadm_id INT NN, stay_id INT NN, caregiver_id INT OPT, "
            "starttime TIMESTAMP NN, endtime TIMESTAMP NN, storetime TIMESTAMP NN, itemid INT NN, "
            "value DOUBLE, valueuom TEXT, location TEXT, locationcategory TEXT, orderid INT, "
            "linkorderid INT, ordercategoryname TEXT, ordercategorydescription TEXT, patientweight DOUBLE, "
            "isopenbag SMALLINT, continueinnextdept SMALLINT, statusdescription TEXT, originalamount DOUBLE, "
            "originalrate DOUBLE",
        ),
    },
}

_TYPE_NAMES = {"INT": "INTEGER", "TEXT": "VARCHAR"}


def _parse_columns(ddl: str) -> tuple[Column, ...]:
    columns = []
    for part in ddl.split(","):
        name, ctype, *flags = part.split()
        columns.append(
            Column(name, _TYPE_NAMES.get(ctype, ctype), not_null="NN" in flags, optional="OPT" in flags)
        )
    return tuple(columns)


SCHEMAS: dict[str, TableSchema] = {
    f"{module}.{table}": TableSchema(
        module, table, _parse_columns(ddl), expected=role in ("req", "exp"), required=role == "req"
    )
    for module, tables in _DDL.items()
    for table, (role, ddl) in tables.items()
}


# Other spellings of a table's file name seen in the wild → the documented name.
_ALIASES = {"echo.structured_measurements": "echo.structured_measurement"}


def schema_for(module: str, table: str) -> TableSchema | None:
    """The documented schema of ``module.table``, or None for a table MIMIC does not document."""
    key = f"{module}.{table}"
    return SCHEMAS.get(_ALIASES.get(key, key))


def expected_tables(module: str) -> list[TableSchema]:
    """Tables a complete release of ``module`` has (the ones whose absence makes it "partial")."""
    return [s for s in SCHEMAS.values() if s.module == module and s.expected]
