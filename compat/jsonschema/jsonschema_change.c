/*
 * jsonschema_change: Confluent's difference types as data -- their names,
 * the STRICT and LENIENT compatible sets, and the message each incompatible
 * difference becomes. A leaf: the diff and the engine both read it.
 *
 * Chapters: 1. difference types  2. messages
 */
#include "compat/jsonschema/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- 1. Difference types ------------------------------------------------------- */

#define JSONSCHEMA_CHANGE_NAME_(name) #name,
static const char *const change_names[JSONSCHEMA_CHANGE_COUNT] = {
    JSONSCHEMA_CHANGE_TYPES(JSONSCHEMA_CHANGE_NAME_)};
#undef JSONSCHEMA_CHANGE_NAME_

const char *jsonschema_change_name(jsonschema_change_t type)
{
    return (unsigned)type < JSONSCHEMA_CHANGE_COUNT ? change_names[type] : "UNKNOWN";
}

int jsonschema_change_parse(const char *text, jsonschema_change_t *out)
{
    size_t len = strcspn(text, " ");
    for (int i = 0; i < JSONSCHEMA_CHANGE_COUNT; i++) {
        if (strlen(change_names[i]) == len && strncmp(change_names[i], text, len) == 0) {
            *out = (jsonschema_change_t)i;
            return 0;
        }
    }
    return -1;
}

/* Spec 4.8: STRICT, then what LENIENT adds. */
static const jsonschema_change_t strict_set[] = {
    JSONSCHEMA_ID_CHANGED,
    JSONSCHEMA_DESCRIPTION_CHANGED,
    JSONSCHEMA_TITLE_CHANGED,
    JSONSCHEMA_DEFAULT_CHANGED,
    JSONSCHEMA_SCHEMA_REMOVED,
    JSONSCHEMA_TYPE_EXTENDED,
    JSONSCHEMA_MAX_LENGTH_INCREASED,
    JSONSCHEMA_MAX_LENGTH_REMOVED,
    JSONSCHEMA_MIN_LENGTH_DECREASED,
    JSONSCHEMA_MIN_LENGTH_REMOVED,
    JSONSCHEMA_PATTERN_REMOVED,
    JSONSCHEMA_MAXIMUM_INCREASED,
    JSONSCHEMA_MAXIMUM_REMOVED,
    JSONSCHEMA_MINIMUM_DECREASED,
    JSONSCHEMA_MINIMUM_REMOVED,
    JSONSCHEMA_EXCLUSIVE_MAXIMUM_INCREASED,
    JSONSCHEMA_EXCLUSIVE_MAXIMUM_REMOVED,
    JSONSCHEMA_EXCLUSIVE_MINIMUM_DECREASED,
    JSONSCHEMA_EXCLUSIVE_MINIMUM_REMOVED,
    JSONSCHEMA_MULTIPLE_OF_REDUCED,
    JSONSCHEMA_MULTIPLE_OF_REMOVED,
    JSONSCHEMA_REQUIRED_ATTRIBUTE_WITH_DEFAULT_ADDED,
    JSONSCHEMA_REQUIRED_ATTRIBUTE_REMOVED,
    JSONSCHEMA_DEPENDENCY_ARRAY_NARROWED,
    JSONSCHEMA_DEPENDENCY_ARRAY_REMOVED,
    JSONSCHEMA_DEPENDENCY_SCHEMA_REMOVED,
    JSONSCHEMA_MAX_PROPERTIES_INCREASED,
    JSONSCHEMA_MAX_PROPERTIES_REMOVED,
    JSONSCHEMA_MIN_PROPERTIES_DECREASED,
    JSONSCHEMA_MIN_PROPERTIES_REMOVED,
    JSONSCHEMA_ADDITIONAL_PROPERTIES_ADDED,
    JSONSCHEMA_ADDITIONAL_PROPERTIES_EXTENDED,
    JSONSCHEMA_UNEVALUATED_PROPERTIES_ADDED,
    JSONSCHEMA_UNEVALUATED_PROPERTIES_EXTENDED,
    JSONSCHEMA_PROPERTY_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL,
    JSONSCHEMA_REQUIRED_PROPERTY_WITH_DEFAULT_ADDED_TO_UNOPEN_CONTENT_MODEL,
    JSONSCHEMA_OPTIONAL_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL,
    JSONSCHEMA_PROPERTY_WITH_FALSE_REMOVED_FROM_CLOSED_CONTENT_MODEL,
    JSONSCHEMA_PROPERTY_REMOVED_FROM_OPEN_CONTENT_MODEL,
    JSONSCHEMA_PROPERTY_ADDED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL,
    JSONSCHEMA_PROPERTY_REMOVED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL,
    JSONSCHEMA_MAX_ITEMS_INCREASED,
    JSONSCHEMA_MAX_ITEMS_REMOVED,
    JSONSCHEMA_MIN_ITEMS_DECREASED,
    JSONSCHEMA_MIN_ITEMS_REMOVED,
    JSONSCHEMA_MAX_CONTAINS_INCREASED,
    JSONSCHEMA_MAX_CONTAINS_REMOVED,
    JSONSCHEMA_MIN_CONTAINS_DECREASED,
    JSONSCHEMA_MIN_CONTAINS_REMOVED,
    JSONSCHEMA_UNIQUE_ITEMS_REMOVED,
    JSONSCHEMA_ADDITIONAL_ITEMS_ADDED,
    JSONSCHEMA_ADDITIONAL_ITEMS_EXTENDED,
    JSONSCHEMA_UNEVALUATED_ITEMS_ADDED,
    JSONSCHEMA_UNEVALUATED_ITEMS_EXTENDED,
    JSONSCHEMA_ITEM_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL,
    JSONSCHEMA_ITEM_ADDED_TO_CLOSED_CONTENT_MODEL,
    JSONSCHEMA_ITEM_WITH_FALSE_REMOVED_FROM_CLOSED_CONTENT_MODEL,
    JSONSCHEMA_ITEM_REMOVED_FROM_OPEN_CONTENT_MODEL,
    JSONSCHEMA_ITEM_ADDED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL,
    JSONSCHEMA_ITEM_REMOVED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL,
    JSONSCHEMA_ENUM_ARRAY_EXTENDED,
    JSONSCHEMA_COMBINED_TYPE_EXTENDED,
    JSONSCHEMA_PRODUCT_TYPE_NARROWED,
    JSONSCHEMA_SUM_TYPE_EXTENDED,
    JSONSCHEMA_NOT_TYPE_NARROWED,
};

static const jsonschema_change_t lenient_extra[] = {
    JSONSCHEMA_ADDITIONAL_PROPERTIES_NARROWED,
    JSONSCHEMA_ADDITIONAL_PROPERTIES_REMOVED,
    JSONSCHEMA_UNEVALUATED_PROPERTIES_NARROWED,
    JSONSCHEMA_UNEVALUATED_PROPERTIES_REMOVED,
    JSONSCHEMA_REQUIRED_PROPERTY_WITH_DEFAULT_ADDED_TO_OPEN_CONTENT_MODEL,
    JSONSCHEMA_OPTIONAL_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL,
    JSONSCHEMA_PROPERTY_REMOVED_FROM_OPEN_CONTENT_MODEL,
    JSONSCHEMA_PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL,
    JSONSCHEMA_PROPERTY_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL,
    JSONSCHEMA_PROPERTY_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL,
};

static int in_set(const jsonschema_change_t *set, size_t n, jsonschema_change_t type)
{
    for (size_t i = 0; i < n; i++) {
        if (set[i] == type)
            return 1;
    }
    return 0;
}

int jsonschema_change_compatible(jsonschema_change_t type, jsonschema_policy_t policy)
{
    if (in_set(strict_set, sizeof strict_set / sizeof *strict_set, type))
        return 1;
    return policy == JSONSCHEMA_LENIENT &&
           in_set(lenient_extra, sizeof lenient_extra / sizeof *lenient_extra, type);
}

/* ---- 2. Messages ---------------------------------------------------------------- */

enum template_id {
    T_NONE,
    T_KEYWORD_MISSING,
    T_MORE,
    T_LESS,
    T_DIFFERENT_VALUE,
    T_FEWER,
    T_MORE_ELEMENTS,
    T_TYPE,
    T_OPEN_ADDED,
    T_UNOPEN_REQUIRED,
    T_CLOSED_REMOVED,
    T_REMOVED_NOT_COVERED,
    T_ADDED_NOT_COVERED,
    T_RESERVED_REMOVED,
    T_RESERVED_CONFLICT,
};

static const struct {
    jsonschema_change_t type;
    enum template_id tpl;
} message_table[] = {
#define K(t)                                                                                                 \
    {                                                                                                        \
        JSONSCHEMA_##t, T_KEYWORD_MISSING                                                                    \
    }
    K(MAXIMUM_ADDED),
    K(MINIMUM_ADDED),
    K(EXCLUSIVE_MAXIMUM_ADDED),
    K(EXCLUSIVE_MINIMUM_ADDED),
    K(MULTIPLE_OF_ADDED),
    K(MAX_LENGTH_ADDED),
    K(MIN_LENGTH_ADDED),
    K(PATTERN_ADDED),
    K(REQUIRED_ATTRIBUTE_ADDED),
    K(MAX_PROPERTIES_ADDED),
    K(MIN_PROPERTIES_ADDED),
    K(DEPENDENCY_ARRAY_ADDED),
    K(DEPENDENCY_SCHEMA_ADDED),
    K(MAX_ITEMS_ADDED),
    K(MIN_ITEMS_ADDED),
    K(MAX_CONTAINS_ADDED),
    K(MIN_CONTAINS_ADDED),
    K(UNIQUE_ITEMS_ADDED),
    K(ADDITIONAL_ITEMS_REMOVED),
    K(ADDITIONAL_PROPERTIES_REMOVED),
    K(UNEVALUATED_PROPERTIES_REMOVED),
    K(UNEVALUATED_ITEMS_REMOVED),
#undef K
#define M(t)                                                                                                 \
    {                                                                                                        \
        JSONSCHEMA_##t, T_MORE                                                                               \
    }
    M(MIN_LENGTH_INCREASED),
    M(MINIMUM_INCREASED),
    M(EXCLUSIVE_MINIMUM_INCREASED),
    M(MIN_PROPERTIES_INCREASED),
    M(MULTIPLE_OF_EXPANDED),
    M(MIN_ITEMS_INCREASED),
    M(MIN_CONTAINS_INCREASED),
#undef M
#define L(t)                                                                                                 \
    {                                                                                                        \
        JSONSCHEMA_##t, T_LESS                                                                               \
    }
    L(MAX_LENGTH_DECREASED),
    L(MAXIMUM_DECREASED),
    L(MAX_ITEMS_DECREASED),
    L(MAX_CONTAINS_DECREASED),
    L(EXCLUSIVE_MAXIMUM_DECREASED),
    L(MAX_PROPERTIES_DECREASED),
#undef L
    {JSONSCHEMA_PATTERN_CHANGED, T_DIFFERENT_VALUE},
    {JSONSCHEMA_MULTIPLE_OF_CHANGED, T_DIFFERENT_VALUE},
    {JSONSCHEMA_DEPENDENCY_ARRAY_CHANGED, T_DIFFERENT_VALUE},
#define F(t)                                                                                                 \
    {                                                                                                        \
        JSONSCHEMA_##t, T_FEWER                                                                              \
    }
    F(ADDITIONAL_ITEMS_NARROWED),
    F(ENUM_ARRAY_NARROWED),
    F(SUM_TYPE_NARROWED),
    F(ADDITIONAL_PROPERTIES_NARROWED),
    F(UNEVALUATED_PROPERTIES_NARROWED),
    F(UNEVALUATED_ITEMS_NARROWED),
#undef F
    {JSONSCHEMA_DEPENDENCY_ARRAY_EXTENDED, T_MORE_ELEMENTS},
    {JSONSCHEMA_PRODUCT_TYPE_EXTENDED, T_MORE_ELEMENTS},
    {JSONSCHEMA_SUM_TYPE_EXTENDED, T_MORE_ELEMENTS},
    {JSONSCHEMA_NOT_TYPE_EXTENDED, T_MORE_ELEMENTS},
#define T(t)                                                                                                 \
    {                                                                                                        \
        JSONSCHEMA_##t, T_TYPE                                                                               \
    }
    T(TYPE_CHANGED),
    T(TYPE_NARROWED),
    T(COMBINED_TYPE_CHANGED),
    T(COMBINED_TYPE_SUBSCHEMAS_CHANGED),
    T(ENUM_ARRAY_CHANGED),
#undef T
    {JSONSCHEMA_REQUIRED_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL, T_OPEN_ADDED},
    {JSONSCHEMA_REQUIRED_PROPERTY_WITH_DEFAULT_ADDED_TO_OPEN_CONTENT_MODEL, T_OPEN_ADDED},
    {JSONSCHEMA_OPTIONAL_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL, T_OPEN_ADDED},
    {JSONSCHEMA_ITEM_ADDED_TO_OPEN_CONTENT_MODEL, T_OPEN_ADDED},
    {JSONSCHEMA_REQUIRED_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL, T_UNOPEN_REQUIRED},
    {JSONSCHEMA_PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL, T_CLOSED_REMOVED},
    {JSONSCHEMA_ITEM_REMOVED_FROM_CLOSED_CONTENT_MODEL, T_CLOSED_REMOVED},
    {JSONSCHEMA_PROPERTY_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL, T_REMOVED_NOT_COVERED},
    {JSONSCHEMA_ITEM_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL, T_REMOVED_NOT_COVERED},
    {JSONSCHEMA_PROPERTY_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL, T_ADDED_NOT_COVERED},
    {JSONSCHEMA_ITEM_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL, T_ADDED_NOT_COVERED},
    {JSONSCHEMA_RESERVED_PROPERTY_REMOVED, T_RESERVED_REMOVED},
    {JSONSCHEMA_RESERVED_PROPERTY_CONFLICTS_WITH_PROPERTY, T_RESERVED_CONFLICT},
};

/* Indexed by template; "%%s" stays "%s" for the level logic's substitution. */
static const char *const templates[] = {
    [T_NONE] = "",
    [T_KEYWORD_MISSING] = "The keyword at path '%s' in the %%s schema is not present in the %%s schema",
    [T_MORE] = "The value at path '%s' in the %%s schema is more than its value in the %%s schema",
    [T_LESS] = "The value at path '%s' in the %%s schema is less than its value in the %%s schema",
    [T_DIFFERENT_VALUE] = "The value at path '%s' is different between the %%s and %%s schema",
    [T_FEWER] = "An array or combined type at path '%s' has fewer elements in the %%s schema than "
                "the %%s schema",
    [T_MORE_ELEMENTS] = "An array or combined type at path '%s' has more elements in the %%s "
                        "schema than the %%s schema",
    [T_TYPE] = "A type at path '%s' is different between the %%s schema and the %%s schema",
    [T_OPEN_ADDED] = "The %%s schema has an open content model and has a property or item at "
                     "path '%s' which is missing in the %%s schema",
    [T_UNOPEN_REQUIRED] = "The %%s schema has an unopen content model and has a required property "
                          "at path '%s' which is missing in the %%s schema",
    [T_CLOSED_REMOVED] = "The %%s has a closed content model and is missing a property or item "
                         "present at path '%s' in the %%s schema",
    [T_REMOVED_NOT_COVERED] = "A property or item is missing in the %%s schema but present at "
                              "path '%s' in the %%s schema and is not covered by its partially "
                              "open content model",
    [T_ADDED_NOT_COVERED] = "The %%s schema has a property or item at path '%s' which is missing "
                            "in the %%s schema and is not covered by its partially open content "
                            "model",
    [T_RESERVED_REMOVED] = "The %%s schema has reserved property '%s' removed from its metadata "
                           "which is present in the %%s schema.",
    [T_RESERVED_CONFLICT] = "The %%s schema has property at path '%s' that conflicts with the "
                            "reserved properties which is missing in the %%s schema.",
};

char *jsonschema_change_description(jsonschema_change_t type, const char *path)
{
    enum template_id tpl = T_NONE;
    for (size_t i = 0; i < sizeof message_table / sizeof *message_table && tpl == T_NONE; i++) {
        if (message_table[i].type == type)
            tpl = message_table[i].tpl;
    }
    char *out = NULL;
    /* The templates are fixed strings from the table above, each with one path slot. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
    if (asprintf(&out, templates[tpl], path) < 0)
        out = NULL;
#pragma GCC diagnostic pop
    return out;
}
