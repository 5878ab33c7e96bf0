#!/usr/bin/env python3
"""Generate a knowledge-graph brain for the graph benchmark and its gold questions.

    gen_graph_brain.py OUT_DIR [--entities 100000] [--links 10] [--seed 7] [--questions FILE] [--count 80]

Writes Markdown pages the way people keep them: people (frontmatter company, role and location; a sentence
saying where they work; colleagues, events and projects linked in sentences; a dated timeline with a job
change for some), companies (founder and investors in the frontmatter, a headquarters sentence), places,
projects and events. About `links` typed links per page; with the defaults 100,000 entity pages and about
1,000,000 links. Names are English, with a Chinese alias for one person in three.

With --questions, also writes gold questions (the JSONL of `engram eval --graph`) whose answers follow from
what was generated: founders, employers, roles now and before a change, locations, attendees, when a change
happened, in English and Chinese.
"""
import argparse
import json
import os
import random

FIRST = ["Ada", "Ben", "Cara", "Dev", "Eli", "Fay", "Gus", "Hana", "Ivo", "Jia", "Kai", "Lena", "Milo", "Nia",
         "Omar", "Pia", "Quin", "Rosa", "Sami", "Tara", "Umar", "Vera", "Wen", "Xia", "Yuri", "Zoe"]
LAST = ["Abbott", "Baker", "Chen", "Diaz", "Evans", "Fischer", "Garcia", "Huang", "Ito", "Jones", "Khan", "Lopez",
        "Meyer", "Novak", "Okafor", "Patel", "Quinn", "Rossi", "Singh", "Tanaka", "Ueda", "Vargas", "Wang", "Xu",
        "Yilmaz", "Zhou"]
ZH_FAMILY = ["王", "李", "张", "刘", "陈", "杨", "赵", "黄", "周", "吴", "徐", "孙", "胡", "朱", "高", "林"]
ZH_GIVEN = ["伟", "芳", "娜", "敏", "静", "丽", "强", "磊", "军", "洋", "勇", "艳", "杰", "涛", "明", "超", "秀", "霞"]
ROLES = ["Engineer", "Designer", "Analyst", "Manager", "Director", "Researcher", "Architect", "Scientist"]
SENIOR = {"Engineer": "Staff Engineer", "Designer": "Design Lead", "Analyst": "Senior Analyst",
          "Manager": "Director", "Director": "VP", "Researcher": "Principal Researcher",
          "Architect": "Chief Architect", "Scientist": "Lead Scientist"}
WORDS = ["Blue", "North", "Bright", "Iron", "Silver", "Quantum", "Cedar", "Harbor", "Summit", "Nova", "Delta",
         "Orbit", "Pine", "River", "Stone", "Vertex"]
KINDS = ["Labs", "Systems", "Robotics", "Capital", "Health", "Energy", "Logistics", "Analytics"]


def write(root, rel, text):
    path = os.path.join(root, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--entities", type=int, default=100000)
    ap.add_argument("--links", type=int, default=10)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--questions")
    ap.add_argument("--count", type=int, default=80)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    n = a.entities
    n_companies = max(4, n // 10)
    n_places = max(2, n // 100)
    n_events = max(2, n // 20)
    n_projects = max(2, n // 20)
    n_people = n - n_companies - n_places - n_events - n_projects
    people, companies = [], []
    for i in range(n_people):
        name = f"{rng.choice(FIRST)} {rng.choice(LAST)} {i}"
        zh = rng.choice(ZH_FAMILY) + rng.choice(ZH_GIVEN) + rng.choice(ZH_GIVEN) + str(i) if i % 3 == 0 else ""
        people.append({"slug": f"people/p{i}", "name": name, "zh": zh})
    for i in range(n_companies):
        companies.append({"slug": f"companies/c{i}", "name": f"{rng.choice(WORDS)} {rng.choice(KINDS)} {i}"})
    places = [{"slug": f"places/l{i}", "name": f"City {i}"} for i in range(n_places)]
    events = [{"slug": f"events/e{i}", "name": f"Summit {i}", "date": f"{2020 + i % 6}-{1 + i % 12:02d}-15",
               "attendees": []} for i in range(n_events)]
    projects = [{"slug": f"projects/j{i}", "name": f"Project {rng.choice(WORDS)} {i}"} for i in range(n_projects)]
    founders = {c["slug"]: [] for c in companies}
    employees = {c["slug"]: [] for c in companies}
    links = 0
    for i, p in enumerate(people):
        company = rng.choice(companies)
        p["company"] = company
        p["role"] = rng.choice(ROLES)
        p["place"] = rng.choice(places)
        p["promoted"] = f"{2021 + i % 5}-{1 + i % 12:02d}-01" if i % 4 == 0 else ""
        p["joined"] = f"{2012 + i % 8}-{1 + i % 12:02d}-01"
        employees[company["slug"]].append(p)
        if i % 37 == 0 and len(founders[company["slug"]]) < 2:
            founders[company["slug"]].append(p)
    for i, p in enumerate(people):
        c = p["company"]
        lines = ["---", f"title: {p['name']}", "type: person"]
        if p["zh"]:
            lines.append(f"aliases: [{p['zh']}]")
        lines += [f'company: "[[{c["slug"]}]]"', f"role: {SENIOR[p['role']] if p['promoted'] else p['role']}",
                  f'location: "[[{p["place"]["slug"]}]]"', "---", "", f"# {p['name']}", ""]
        lines.append(f"{p['name']} works at [[{c['slug']}]] and lives in [[{p['place']['slug']}]].")
        links += 3
        extra = max(0, a.links - 3)
        body = []
        for _ in range(extra):
            r = rng.random()
            if r < 0.45:
                o = people[rng.randrange(len(people))]
                body.append(f"- Works with [[{o['slug']}]] on the roadmap.")
            elif r < 0.65:
                e = rng.choice(events)
                body.append(f"- Attended [[{e['slug']}]].")
                e["attendees"].append(p)
            elif r < 0.85:
                body.append(f"- Contributes to [[{rng.choice(projects)['slug']}]].")
            else:
                body.append(f"- Knows people at [[{rng.choice(companies)['slug']}]].")
            links += 1
        lines += [""] + body + ["", "<!-- timeline -->", ""]
        lines.append(f"- **{p['joined']}** | Joined [[{c['slug']}]] as {p['role']}")
        if p["promoted"]:
            lines.append(f"- **{p['promoted']}** | Promoted to {SENIOR[p['role']]}")
        write(a.out, p["slug"] + ".md", "\n".join(lines) + "\n")
    for c in companies:
        fs = founders[c["slug"]]
        place = rng.choice(places)
        c["place"] = place
        lines = ["---", f"title: {c['name']}", "type: company"]
        if fs:
            lines.append("founder: [" + ", ".join(f'"[[{f["slug"]}]]"' for f in fs) + "]")
            links += len(fs)
        lines += ["---", "", f"# {c['name']}", "", f"{c['name']} is headquartered in [[{place['slug']}]].", ""]
        links += 1
        for _ in range(max(0, a.links - 2)):
            lines.append(f"- Partner of [[{rng.choice(companies)['slug']}]].")
            links += 1
        write(a.out, c["slug"] + ".md", "\n".join(lines) + "\n")
    for pl in places:
        write(a.out, pl["slug"] + ".md", f"---\ntitle: {pl['name']}\ntype: place\n---\n\n# {pl['name']}\n\nA city.\n")
    for e in events:
        lines = ["---", f"title: {e['name']}", "type: event", f"date: {e['date']}", "---", "", f"# {e['name']}", "",
                 f"Held in [[{rng.choice(places)['slug']}]].", ""]
        links += 1
        for _ in range(max(0, a.links - 1)):
            lines.append(f"- Sponsor: [[{rng.choice(companies)['slug']}]]")
            links += 1
        write(a.out, e["slug"] + ".md", "\n".join(lines) + "\n")
    for j in projects:
        lines = ["---", f"title: {j['name']}", "type: project", "---", "", f"# {j['name']}", ""]
        for _ in range(a.links):
            lines.append(f"- Depends on [[{rng.choice(projects)['slug']}]].")
            links += 1
        write(a.out, j["slug"] + ".md", "\n".join(lines) + "\n")
    print(json.dumps({"pages": n, "people": n_people, "companies": n_companies, "places": n_places,
                      "events": n_events, "projects": n_projects, "links": links}))
    if not a.questions:
        return
    out = []
    founded = [c for c in companies if founders[c["slug"]]]
    promoted = [p for p in people if p["promoted"]]
    with_zh = [p for p in people if p["zh"]]
    kinds = [
        ("relation", "en", lambda: (lambda c: (f"Who founded {c['name']}?", [f["slug"] for f in founders[c["slug"]]], ""))(rng.choice(founded))),
        ("relation", "zh", lambda: (lambda c: (f"{c['name']}的创始人是谁？", [f["slug"] for f in founders[c["slug"]]], ""))(rng.choice(founded))),
        ("relation", "en", lambda: (lambda p: (f"Where does {p['name']} work?", [p["company"]["slug"]], ""))(rng.choice(people))),
        ("relation", "zh", lambda: (lambda p: (f"{p['zh']}在哪家公司工作？", [p["company"]["slug"]], ""))(rng.choice(with_zh))),
        ("current", "en", lambda: (lambda p: (f"What is {p['name']}'s role now?", [SENIOR[p["role"]]], ""))(rng.choice(promoted))),
        ("current", "zh", lambda: (lambda p: (f"{p['name']}现在的职位是什么？", [SENIOR[p["role"]]], ""))(rng.choice(promoted))),
        ("past", "en", lambda: (lambda p: (f"What was {p['name']}'s role in {int(p['promoted'][:4]) - 1}?", [p["role"]],
                                            f"{int(p['promoted'][:4]) - 1}-06-30"))(rng.choice(promoted))),
        ("current", "en", lambda: (lambda p: (f"Where does {p['name']} live?", [p["place"]["slug"]], ""))(rng.choice(people))),
        ("temporal", "en", lambda: (lambda p: (f"When did {p['name']} become {SENIOR[p['role']]}?", [p["promoted"]], ""))(rng.choice(promoted))),
        ("temporal", "zh", lambda: (lambda p: (f"{p['name']}什么时候加入{p['company']['name']}？", [p["joined"]], ""))(rng.choice(people))),
    ]
    for k in range(a.count):
        kind, lang, make = kinds[k % len(kinds)]
        q, expect, as_of = make()
        item = {"id": f"gen-{k:03d}", "lang": lang, "kind": kind, "question": q, "expect": expect}
        if as_of:
            item["as_of"] = as_of
        out.append(item)
    with open(a.questions, "w", encoding="utf-8") as f:
        for item in out:
            f.write(json.dumps(item, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
