"""Roster files as each LMS exports them, for the intake's and the export's tests.

Every builder writes the bytes its LMS writes, following /work/shared/reference/lms-formats.md (cited beside
each). Where that file says nothing about a roster's exact columns (Gradescope, Google Classroom), the builder
follows the fields the download itself carries, and says so.
"""

from __future__ import annotations

from pathlib import Path


def write(path: Path, text: str, encoding: str = "utf-8") -> Path:
    path.write_bytes(text.encode(encoding))
    return path


def canvas_roster(tmp_path: Path) -> Path:
    # lms-formats.md, Canvas, Gradebook CSV: "column 0 contains Student, column 1 contains ID; then optionally SIS
    # User ID, SIS Login ID (and Integration ID, Root Account); the last identity column contains Section"; "A row
    # whose first cell contains Points Possible (real exports write it with four leading spaces)"; "Current/Final
    # ... Score" columns are Canvas's own.
    return write(tmp_path / "canvas_gradebook.csv",
                 "Student,ID,SIS User ID,SIS Login ID,Integration ID,Section,01_devices (4411),Current Score\n"
                 "    Points Possible,,,,,,10,(read only)\n"
                 '"Müller, José",9001,S1001,jmuller,,Section A,,\n'
                 '"王, 小明",9002,S1002,xwang,,Section A,,\n'
                 '"Lovelace, Ada",9003,S1003,alovelace,,Section B,,\n'
                 '"Student, Test",9999,,,,Section A,,\n')


def moodle_grades(tmp_path: Path) -> Path:
    # lms-formats.md, Moodle, Grade CSV import: "a roster (Moodle's own grade export or participants list: First
    # name, Last name, ID number, Email address, …)". Two students share a full name: "Two students with the same
    # full name differ only by the participant id".
    return write(tmp_path / "moodle_grades.csv",
                 "First name,Last name,ID number,Institution,Department,Email address,"
                 "Assignment: 01_devices (Real),Last downloaded from this course\n"
                 "Ada,Lovelace,20231,,,ada.l@uni.example,-,\n"
                 "Ada,Lovelace,20232,,,ada.lovelace2@uni.example,-,\n"
                 "Seán,O'Brien,20233,,,sean@uni.example,-,\n")


def moodle_participants(tmp_path: Path) -> Path:
    # lms-formats.md, Moodle: "participants list: First name, Last name, ID number, Email address, …"; the list
    # holds the teachers too.
    return write(tmp_path / "courseid_5_participants.csv",
                 "First name,Last name,Email address,Roles,Groups,Last access to course\n"
                 "Grace,Hopper,grace@uni.example,Student,\"Team A, Team B\",2 days\n"
                 "Alan,Turing,alan@uni.example,Teacher,,now\n")


def blackboard_download(tmp_path: Path) -> Path:
    # lms-formats.md, Blackboard, Grade Center upload: "CSV or tab-delimited with Last Name, First Name, Username,
    # and item columns <Name> [Total Pts: N] |<column id>; Username is the key". The download is tab-separated
    # UTF-16 LE with a BOM (its .xls). Numeric usernames occur (Assignment_1_20123456_attempt_…).
    text = ("Last Name\tFirst Name\tUsername\tStudent ID\tLast Access\tAvailability\t"
            "Assignment 1 [Total Pts: 10 Score] |123456\n"
            "Lovelace\tAda\t20123456\tS1003\t2026-01-05\tAvailable\t\n"
            "Müller\tJosé\tjmuller\tS1001\t2026-01-05\tAvailable\t\n")
    return write(tmp_path / "gc_COURSE_fullgc_2026-01-06-10-00-00.xls", "\ufeff" + text, "utf-16-le")


def brightspace_export(tmp_path: Path) -> Path:
    # lms-formats.md, Brightspace, Grade import CSV: "an OrgDefinedId or Username column (exports prefix values with
    # #), item columns <Item> Points Grade <Numeric MaxPoints:N>, and a last column End-of-Line Indicator holding #".
    return write(tmp_path / "brightspace_grades.csv",
                 "OrgDefinedId,Username,Last Name,First Name,Email,01_devices Points Grade <Numeric MaxPoints:10>,"
                 "End-of-Line Indicator\n"
                 "#1001,#jmuller,Müller,José,jose@uni.example,,#\n"
                 "#1002,#ada,Lovelace,Ada,ada@uni.example,,#\n", "utf-8-sig")


def gradescope_roster(tmp_path: Path) -> Path:
    # lms-formats.md, Gradescope: submitters carry ":name:, :sid:, :email:"; the roster holds the same fields
    # (its exact column names are not in lms-formats.md: unverified), and lists the staff with a Role.
    return write(tmp_path / "gradescope_roster.csv",
                 "Name,Email,SID,Role\nAda Lovelace,ada@uni.example,20231,Student\n"
                 "José Müller,jose@uni.example,,Student\nPat Grader,pat@uni.example,,TA\n")
