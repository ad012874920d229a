#!/usr/bin/env python3
"""Removes from an abidw dump what ABI v1 allows a struct to gain: members
appended after the struct's released end. abidiff then compares the rest,
and any difference left is a break.

  trim_appended.py BASELINE.xml CURRENT.xml OUT.xml FROZEN_STRUCT...

For every struct of the baseline except the frozen ones (value types embedded
in other structs, whose size is part of their users' layout), the struct of
the same name in CURRENT loses the data members that start at or after the
baseline's size and gets the baseline's size back. A member that grew across
the old end, or one inserted before it, moves or resizes what the baseline
has there, so abidiff still sees it.

(libabigail's own `has_data_member_inserted_at = end` suppression, tried
first, also hid a changed member type in the same struct: 2.2 treats "no
member inserted" as matching.)
"""
import sys
import xml.etree.ElementTree as ET


def struct_sizes(root):
    sizes = {}
    for decl in root.iter("class-decl"):
        if decl.get("is-struct") == "yes" and decl.get("size-in-bits") and decl.get("name"):
            sizes[decl.get("name")] = int(decl.get("size-in-bits"))
    return sizes


def main():
    baseline, current, out, *frozen = sys.argv[1:]
    released = struct_sizes(ET.parse(baseline).getroot())
    tree = ET.parse(current)
    for decl in tree.getroot().iter("class-decl"):
        name = decl.get("name")
        if name not in released or name in frozen or not decl.get("size-in-bits"):
            continue
        end = released[name]
        if int(decl.get("size-in-bits")) <= end:
            continue  # not grown (a shrink is left for abidiff to report)
        for member in list(decl.findall("data-member")):
            if int(member.get("layout-offset-in-bits", "0")) >= end:
                decl.remove(member)
        decl.set("size-in-bits", str(end))
    tree.write(out, encoding="unicode")


if __name__ == "__main__":
    main()
