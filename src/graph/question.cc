#include "graph/question.h"

#include <algorithm>
#include <array>
#include <vector>

#include "common/files.h"
#include "common/utf8.h"
#include "text/page_parser.h"

namespace engram::graph {

namespace {

struct Template {
  std::string_view text;  // with {X} (and {Y}) slots; English in lower case
  QuestionKind kind;
  std::string_view predicate;
};

using K = QuestionKind;

// The English templates. Order does not matter: the most specific (the
// longest literal text) is tried first.
constexpr Template kEnglish[] = {
    // Who has the relation to X.
    {"who founded {X}", K::kInverse, "founded"},
    {"who co-founded {X}", K::kInverse, "founded"},
    {"who started {X}", K::kInverse, "founded"},
    {"who is the founder of {X}", K::kInverse, "founded"},
    {"who are the founders of {X}", K::kInverse, "founded"},
    {"who is the co-founder of {X}", K::kInverse, "founded"},
    {"who are the co-founders of {X}", K::kInverse, "founded"},
    {"who was {X} founded by", K::kInverse, "founded"},
    {"founders of {X}", K::kInverse, "founded"},
    {"founder of {X}", K::kInverse, "founded"},
    {"{X}'s founders", K::kInverse, "founded"},
    {"{X}'s founder", K::kInverse, "founded"},
    {"who are {X}'s founders", K::kInverse, "founded"},
    {"who is {X}'s founder", K::kInverse, "founded"},
    {"who works at {X}", K::kInverse, "works_at"},
    {"who works for {X}", K::kInverse, "works_at"},
    {"who is working at {X}", K::kInverse, "works_at"},
    {"who are the employees of {X}", K::kInverse, "works_at"},
    {"who is employed by {X}", K::kInverse, "works_at"},
    {"employees of {X}", K::kInverse, "works_at"},
    {"who works at the {X}", K::kInverse, "works_at"},
    {"who is at {X}", K::kInverse, "works_at"},
    {"who invested in {X}", K::kInverse, "invested_in"},
    {"who has invested in {X}", K::kInverse, "invested_in"},
    {"who backed {X}", K::kInverse, "invested_in"},
    {"who funded {X}", K::kInverse, "invested_in"},
    {"who are the investors in {X}", K::kInverse, "invested_in"},
    {"who are the investors of {X}", K::kInverse, "invested_in"},
    {"who are {X}'s investors", K::kInverse, "invested_in"},
    {"{X}'s investors", K::kInverse, "invested_in"},
    {"investors in {X}", K::kInverse, "invested_in"},
    {"who invests in {X}", K::kInverse, "invested_in"},
    {"who attended {X}", K::kInverse, "attended"},
    {"who attended the {X}", K::kInverse, "attended"},
    {"who was at {X}", K::kInverse, "attended"},
    {"who was at the {X}", K::kInverse, "attended"},
    {"who took part in {X}", K::kInverse, "attended"},
    {"who participated in {X}", K::kInverse, "attended"},
    {"who went to {X}", K::kInverse, "attended"},
    {"attendees of {X}", K::kInverse, "attended"},
    {"who were the attendees of {X}", K::kInverse, "attended"},
    {"who was in {X}", K::kInverse, "attended"},
    {"who reports to {X}", K::kInverse, "reports_to"},
    {"who are {X}'s reports", K::kInverse, "reports_to"},
    {"who works under {X}", K::kInverse, "reports_to"},
    {"who advises {X}", K::kInverse, "advises"},
    {"who are the advisors of {X}", K::kInverse, "advises"},
    {"who are {X}'s advisors", K::kInverse, "advises"},
    {"who acquired {X}", K::kInverse, "acquired"},
    {"who bought {X}", K::kInverse, "acquired"},
    {"which company acquired {X}", K::kInverse, "acquired"},
    {"what is part of {X}", K::kInverse, "part_of"},
    {"what belongs to {X}", K::kInverse, "part_of"},
    {"who studied at {X}", K::kInverse, "education"},
    {"who graduated from {X}", K::kInverse, "education"},
    // X's value.
    {"where does {X} work", K::kFact, "works_at"},
    {"where is {X} working", K::kFact, "works_at"},
    {"where did {X} work", K::kFact, "works_at"},
    {"who does {X} work for", K::kFact, "works_at"},
    {"who did {X} work for", K::kFact, "works_at"},
    {"which company does {X} work for", K::kFact, "works_at"},
    {"which company does {X} work at", K::kFact, "works_at"},
    {"what company does {X} work for", K::kFact, "works_at"},
    {"what company does {X} work at", K::kFact, "works_at"},
    {"which company did {X} work for", K::kFact, "works_at"},
    {"who is {X}'s employer", K::kFact, "works_at"},
    {"{X}'s employer", K::kFact, "works_at"},
    {"who employs {X}", K::kFact, "works_at"},
    {"where was {X} working", K::kFact, "works_at"},
    {"where is {X} based", K::kFact, "location"},
    {"where does {X} live", K::kFact, "location"},
    {"where is {X} located", K::kFact, "location"},
    {"where is {X} headquartered", K::kFact, "location"},
    {"where are {X} based", K::kFact, "location"},
    {"where did {X} live", K::kFact, "location"},
    {"where was {X} based", K::kFact, "location"},
    {"which city is {X} in", K::kFact, "location"},
    {"which city is {X} based in", K::kFact, "location"},
    {"what city is {X} in", K::kFact, "location"},
    {"where is {X}", K::kFact, "location"},
    {"where was {X}", K::kFact, "location"},
    {"{X}'s location", K::kFact, "location"},
    {"what is {X}'s location", K::kFact, "location"},
    {"what city does {X} live in", K::kFact, "location"},
    {"which city does {X} live in", K::kFact, "location"},
    {"what is {X}'s role", K::kFact, "role"},
    {"what is {X}'s title", K::kFact, "role"},
    {"what is {X}'s job", K::kFact, "role"},
    {"what is {X}'s position", K::kFact, "role"},
    {"what is {X}'s job title", K::kFact, "role"},
    {"what was {X}'s job title", K::kFact, "role"},
    {"what was {X}'s role", K::kFact, "role"},
    {"what was {X}'s title", K::kFact, "role"},
    {"what was {X}'s position", K::kFact, "role"},
    {"what does {X} do", K::kFact, "role"},
    {"what did {X} do", K::kFact, "role"},
    {"what role does {X} have", K::kFact, "role"},
    {"what role did {X} have", K::kFact, "role"},
    {"what position does {X} hold", K::kFact, "role"},
    {"what position did {X} hold", K::kFact, "role"},
    {"what is the role of {X}", K::kFact, "role"},
    {"{X}'s role", K::kFact, "role"},
    {"{X}'s title", K::kFact, "role"},
    {"what job does {X} have", K::kFact, "role"},
    {"what role does {X} play", K::kFact, "role"},
    {"what role did {X} hold", K::kFact, "role"},
    {"what role does {X} hold", K::kFact, "role"},
    {"who does {X} report to", K::kFact, "reports_to"},
    {"who did {X} report to", K::kFact, "reports_to"},
    {"who is {X}'s manager", K::kFact, "reports_to"},
    {"who is {X}'s boss", K::kFact, "reports_to"},
    {"who was {X}'s manager", K::kFact, "reports_to"},
    {"{X}'s manager", K::kFact, "reports_to"},
    {"what did {X} found", K::kFact, "founded"},
    {"which company did {X} found", K::kFact, "founded"},
    {"which companies did {X} found", K::kFact, "founded"},
    {"what companies did {X} found", K::kFact, "founded"},
    {"what has {X} founded", K::kFact, "founded"},
    {"what did {X} co-found", K::kFact, "founded"},
    {"which company did {X} co-found", K::kFact, "founded"},
    {"what company did {X} found", K::kFact, "founded"},
    {"where did {X} study", K::kFact, "education"},
    {"where did {X} go to school", K::kFact, "education"},
    {"where did {X} graduate from", K::kFact, "education"},
    {"which university did {X} attend", K::kFact, "education"},
    {"what is {X} part of", K::kFact, "part_of"},
    {"which company does {X} belong to", K::kFact, "part_of"},
    {"what does {X} belong to", K::kFact, "part_of"},
    {"what has {X} invested in", K::kFact, "invested_in"},
    {"what did {X} invest in", K::kFact, "invested_in"},
    {"which companies has {X} invested in", K::kFact, "invested_in"},
    {"which companies did {X} invest in", K::kFact, "invested_in"},
    {"{X}'s investments", K::kFact, "invested_in"},
    {"what are {X}'s investments", K::kFact, "invested_in"},
    {"what does {X} invest in", K::kFact, "invested_in"},
    {"what did {X} attend", K::kFact, "attended"},
    {"which events did {X} attend", K::kFact, "attended"},
    {"which meetings did {X} attend", K::kFact, "attended"},
    {"what meetings did {X} attend", K::kFact, "attended"},
    {"what did {X} acquire", K::kFact, "acquired"},
    {"which companies did {X} acquire", K::kFact, "acquired"},
    {"who does {X} advise", K::kFact, "advises"},
    {"which companies does {X} advise", K::kFact, "advises"},
    {"when was {X} born", K::kFact, "born"},
    {"what is {X}'s birthday", K::kFact, "born"},
    {"{X}'s birthday", K::kFact, "born"},
    {"when was {X} founded", K::kFact, "founded"},
    {"when was {X} established", K::kFact, "founded"},
    {"when was {X} started", K::kFact, "founded"},
    {"what year was {X} founded", K::kFact, "founded"},
    {"when did {X} get founded", K::kFact, "founded"},
    {"what is {X}'s status", K::kFact, "status"},
    {"what is the status of {X}", K::kFact, "status"},
    {"status of {X}", K::kFact, "status"},
    {"what is {X}'s email", K::kFact, "email"},
    {"{X}'s email", K::kFact, "email"},
    // Conflicts.
    {"are there conflicting facts about {X}", K::kConflict, ""},
    {"are there any conflicts about {X}", K::kConflict, ""},
    {"are there conflicts about {X}", K::kConflict, ""},
    {"what conflicts are there about {X}", K::kConflict, ""},
    {"what facts conflict about {X}", K::kConflict, ""},
    {"which facts about {X} conflict", K::kConflict, ""},
    {"is there a conflict about {X}", K::kConflict, ""},
    {"conflicts about {X}", K::kConflict, ""},
    {"conflicting facts about {X}", K::kConflict, ""},
    {"what is contradictory about {X}", K::kConflict, ""},
    {"are there contradictions about {X}", K::kConflict, ""},
    {"what are the conflicts about {X}", K::kConflict, ""},
    {"does {X} have conflicting facts", K::kConflict, ""},
    {"any conflicts for {X}", K::kConflict, ""},
    {"conflicts for {X}", K::kConflict, ""},
    {"are there any conflicting facts about {X}", K::kConflict, ""},
    {"what contradictions are there about {X}", K::kConflict, ""},
    {"is anything about {X} contradictory", K::kConflict, ""},
    {"what do the notes disagree on about {X}", K::kConflict, ""},
    {"which facts about {X} disagree", K::kConflict, ""},
    {"are there contradictory facts about {X}", K::kConflict, ""},
    {"are there conflicting facts about {X}'s location", K::kConflict, "location"},
    {"is {X}'s location contradictory", K::kConflict, "location"},
    {"what conflicts are there", K::kConflict, ""},
    {"are there any conflicts", K::kConflict, ""},
    {"which facts conflict", K::kConflict, ""},
    {"list conflicts", K::kConflict, ""},
    {"what facts conflict", K::kConflict, ""},
    {"are there any conflicting facts", K::kConflict, ""},
    // Paths.
    {"how is {X} connected to {Y}", K::kPath, ""},
    {"how is {X} related to {Y}", K::kPath, ""},
    {"how are {X} and {Y} connected", K::kPath, ""},
    {"how are {X} and {Y} related", K::kPath, ""},
    {"what connects {X} and {Y}", K::kPath, ""},
    {"what connects {X} to {Y}", K::kPath, ""},
    {"what links {X} and {Y}", K::kPath, ""},
    {"what links {X} to {Y}", K::kPath, ""},
    {"what is the connection between {X} and {Y}", K::kPath, ""},
    {"what is the relationship between {X} and {Y}", K::kPath, ""},
    {"path from {X} to {Y}", K::kPath, ""},
    {"connection between {X} and {Y}", K::kPath, ""},
    {"how does {X} connect to {Y}", K::kPath, ""},
    {"how do {X} and {Y} connect", K::kPath, ""},
    {"is {X} connected to {Y}", K::kPath, ""},
    {"how is {X} linked to {Y}", K::kPath, ""},
    {"how are {X} and {Y} linked", K::kPath, ""},
    {"what is the link between {X} and {Y}", K::kPath, ""},
    // When, and what happened.
    {"when did {X}", K::kWhen, ""},
    {"when was {X}", K::kWhen, ""},
    {"when were {X}", K::kWhen, ""},
    {"what happened with {X}", K::kWhen, ""},
    {"what happened to {X}", K::kWhen, ""},
    {"what changed with {X}", K::kWhen, ""},
    {"what changed for {X}", K::kWhen, ""},
    {"what happened at {X}", K::kWhen, ""},
    {"what has happened with {X}", K::kWhen, ""},
    {"what's new with {X}", K::kWhen, ""},
    {"{X} timeline", K::kWhen, ""},
    {"timeline of {X}", K::kWhen, ""},
    {"history of {X}", K::kWhen, ""},
    {"what has changed with {X}", K::kWhen, ""},
    {"what happened in {X}", K::kWhen, ""},
    {"what happened", K::kWhen, ""},
    {"what changed", K::kWhen, ""},
    // Families: "which investment firms invested in X", "what is X's position at Y".
    {"which {_} invested in {X}", K::kInverse, "invested_in"},
    {"which {_} founded {X}", K::kInverse, "founded"},
    {"which {_} work at {X}", K::kInverse, "works_at"},
    {"which {_} works at {X}", K::kInverse, "works_at"},
    {"which {_} attended {X}", K::kInverse, "attended"},
    {"who attends {X}", K::kInverse, "attended"},
    {"who attends the {X}", K::kInverse, "attended"},
    {"who is attending {X}", K::kInverse, "attended"},
    {"which {_} does {X} work for", K::kFact, "works_at"},
    {"which {_} does {X} work at", K::kFact, "works_at"},
    {"what {_} does {X} work for", K::kFact, "works_at"},
    {"what {_} does {X} work at", K::kFact, "works_at"},
    {"which {_} is {X} at", K::kFact, "works_at"},
    {"what is {X}'s position at {_}", K::kFact, "role"},
    {"what is {X}'s role at {_}", K::kFact, "role"},
    {"what is {X}'s title at {_}", K::kFact, "role"},
    {"what position does {X} hold at {_}", K::kFact, "role"},
    {"what role does {X} have at {_}", K::kFact, "role"},
    {"what was {X}'s role at {_}", K::kFact, "role"},
    {"what was {X}'s position at {_}", K::kFact, "role"},
    {"which city does {X} work in", K::kFact, "location"},
    {"what city does {X} work in", K::kFact, "location"},
    {"which {_} has {X} invested in", K::kFact, "invested_in"},
    {"which {_} did {X} invest in", K::kFact, "invested_in"},
    {"which {_} did {X} attend", K::kFact, "attended"},
    {"which {_} did {X} found", K::kFact, "founded"},
};

constexpr Template kChinese[] = {
    {"谁创立了{X}", K::kInverse, "founded"},
    {"谁创办了{X}", K::kInverse, "founded"},
    {"谁创建了{X}", K::kInverse, "founded"},
    {"谁成立了{X}", K::kInverse, "founded"},
    {"{X}的创始人是谁", K::kInverse, "founded"},
    {"{X}的创始人有哪些", K::kInverse, "founded"},
    {"{X}的创始人有谁", K::kInverse, "founded"},
    {"{X}的联合创始人是谁", K::kInverse, "founded"},
    {"{X}的联合创始人有哪些", K::kInverse, "founded"},
    {"{X}是谁创立的", K::kInverse, "founded"},
    {"{X}是谁创办的", K::kInverse, "founded"},
    {"{X}由谁创立", K::kInverse, "founded"},
    {"{X}由谁创办", K::kInverse, "founded"},
    {"{X}是由谁创立的", K::kInverse, "founded"},
    {"{X}是由谁创办的", K::kInverse, "founded"},
    {"{X}的创办人是谁", K::kInverse, "founded"},
    {"{X}的创始人", K::kInverse, "founded"},
    {"{X}的创始团队有谁", K::kInverse, "founded"},
    {"谁在{X}工作", K::kInverse, "works_at"},
    {"谁在{X}上班", K::kInverse, "works_at"},
    {"谁就职于{X}", K::kInverse, "works_at"},
    {"{X}有哪些员工", K::kInverse, "works_at"},
    {"{X}的员工有哪些", K::kInverse, "works_at"},
    {"{X}的员工有谁", K::kInverse, "works_at"},
    {"哪些人在{X}工作", K::kInverse, "works_at"},
    {"谁在{X}任职", K::kInverse, "works_at"},
    {"{X}有谁在工作", K::kInverse, "works_at"},
    {"{X}有哪些人", K::kInverse, "works_at"},
    {"谁投资了{X}", K::kInverse, "invested_in"},
    {"{X}的投资人是谁", K::kInverse, "invested_in"},
    {"{X}的投资方是谁", K::kInverse, "invested_in"},
    {"{X}的投资人有哪些", K::kInverse, "invested_in"},
    {"{X}的投资方有哪些", K::kInverse, "invested_in"},
    {"{X}获得了谁的投资", K::kInverse, "invested_in"},
    {"{X}获得了哪些投资", K::kInverse, "invested_in"},
    {"哪些机构投资了{X}", K::kInverse, "invested_in"},
    {"{X}的投资者有哪些", K::kInverse, "invested_in"},
    {"{X}的投资者是谁", K::kInverse, "invested_in"},
    {"谁领投了{X}", K::kInverse, "invested_in"},
    {"哪些投资方投了{X}", K::kInverse, "invested_in"},
    {"{X}有哪些投资人", K::kInverse, "invested_in"},
    {"{X}有哪些投资方", K::kInverse, "invested_in"},
    {"谁参加了{X}", K::kInverse, "attended"},
    {"谁出席了{X}", K::kInverse, "attended"},
    {"{X}有哪些参会者", K::kInverse, "attended"},
    {"{X}的参会者有哪些", K::kInverse, "attended"},
    {"{X}有谁参加", K::kInverse, "attended"},
    {"哪些人参加了{X}", K::kInverse, "attended"},
    {"{X}的与会者有哪些", K::kInverse, "attended"},
    {"{X}有哪些与会者", K::kInverse, "attended"},
    {"参加{X}的有谁", K::kInverse, "attended"},
    {"{X}的参会人有哪些", K::kInverse, "attended"},
    {"{X}有哪些人参加", K::kInverse, "attended"},
    {"{X}的参会人员有哪些", K::kInverse, "attended"},
    {"{X}有谁出席", K::kInverse, "attended"},
    {"参加{X}的人有哪些", K::kInverse, "attended"},
    {"谁向{X}汇报", K::kInverse, "reports_to"},
    {"{X}的下属有哪些", K::kInverse, "reports_to"},
    {"{X}的下属是谁", K::kInverse, "reports_to"},
    {"谁是{X}的顾问", K::kInverse, "advises"},
    {"{X}的顾问是谁", K::kInverse, "advises"},
    {"{X}的顾问有哪些", K::kInverse, "advises"},
    {"谁收购了{X}", K::kInverse, "acquired"},
    {"{X}被谁收购了", K::kInverse, "acquired"},
    {"{X}被谁收购", K::kInverse, "acquired"},
    {"{X}有哪些子公司", K::kInverse, "part_of"},
    {"哪些团队隶属于{X}", K::kInverse, "part_of"},
    {"谁毕业于{X}", K::kInverse, "education"},
    {"{X}在哪里工作", K::kFact, "works_at"},
    {"{X}在哪工作", K::kFact, "works_at"},
    {"{X}在哪家公司工作", K::kFact, "works_at"},
    {"{X}在什么公司工作", K::kFact, "works_at"},
    {"{X}在哪个公司工作", K::kFact, "works_at"},
    {"{X}就职于哪家公司", K::kFact, "works_at"},
    {"{X}就职于哪里", K::kFact, "works_at"},
    {"{X}任职于哪家公司", K::kFact, "works_at"},
    {"{X}的雇主是谁", K::kFact, "works_at"},
    {"{X}在哪里上班", K::kFact, "works_at"},
    {"{X}在哪上班", K::kFact, "works_at"},
    {"{X}在哪家公司上班", K::kFact, "works_at"},
    {"{X}在哪里任职", K::kFact, "works_at"},
    {"{X}是哪家公司的", K::kFact, "works_at"},
    {"{X}供职于哪家公司", K::kFact, "works_at"},
    {"{X}的公司是哪家", K::kFact, "works_at"},
    {"{X}在哪家公司", K::kFact, "works_at"},
    {"{X}在哪家公司任职", K::kFact, "works_at"},
    {"{X}住在哪里", K::kFact, "location"},
    {"{X}住在哪", K::kFact, "location"},
    {"{X}的总部在哪里", K::kFact, "location"},
    {"{X}的总部在哪", K::kFact, "location"},
    {"{X}总部在哪里", K::kFact, "location"},
    {"{X}总部在哪", K::kFact, "location"},
    {"{X}位于哪里", K::kFact, "location"},
    {"{X}位于哪", K::kFact, "location"},
    {"{X}在哪个城市", K::kFact, "location"},
    {"{X}常驻哪里", K::kFact, "location"},
    {"{X}常驻哪个城市", K::kFact, "location"},
    {"{X}的所在地是哪里", K::kFact, "location"},
    {"{X}在什么地方", K::kFact, "location"},
    {"{X}住在哪个城市", K::kFact, "location"},
    {"{X}的总部位于哪里", K::kFact, "location"},
    {"{X}的总部设在哪里", K::kFact, "location"},
    {"{X}位于哪个城市", K::kFact, "location"},
    {"{X}的地点是哪里", K::kFact, "location"},
    {"{X}在哪里", K::kFact, "location"},
    {"{X}在哪", K::kFact, "location"},
    {"{X}在哪个城市工作", K::kFact, "location"},
    {"{X}在哪座城市", K::kFact, "location"},
    {"{X}的职位是什么", K::kFact, "role"},
    {"{X}的职务是什么", K::kFact, "role"},
    {"{X}的角色是什么", K::kFact, "role"},
    {"{X}的头衔是什么", K::kFact, "role"},
    {"{X}担任什么职务", K::kFact, "role"},
    {"{X}担任什么职位", K::kFact, "role"},
    {"{X}担任什么角色", K::kFact, "role"},
    {"{X}是做什么的", K::kFact, "role"},
    {"{X}做什么工作", K::kFact, "role"},
    {"{X}的职位", K::kFact, "role"},
    {"{X}的职务", K::kFact, "role"},
    {"{X}是什么职位", K::kFact, "role"},
    {"{X}的岗位是什么", K::kFact, "role"},
    {"{X}担任什么", K::kFact, "role"},
    {"{X}的工作是什么", K::kFact, "role"},
    {"{X}担任何职", K::kFact, "role"},
    {"{X}在公司担任什么职务", K::kFact, "role"},
    {"{X}在公司的职位是什么", K::kFact, "role"},
    {"{X}是什么角色", K::kFact, "role"},
    {"{X}的职位是", K::kFact, "role"},
    {"{X}担任的职务是什么", K::kFact, "role"},
    {"{X}向谁汇报", K::kFact, "reports_to"},
    {"{X}的上级是谁", K::kFact, "reports_to"},
    {"{X}的直属上级是谁", K::kFact, "reports_to"},
    {"{X}的老板是谁", K::kFact, "reports_to"},
    {"{X}的经理是谁", K::kFact, "reports_to"},
    {"{X}汇报给谁", K::kFact, "reports_to"},
    {"{X}的汇报对象是谁", K::kFact, "reports_to"},
    {"{X}创立了什么公司", K::kFact, "founded"},
    {"{X}创立了哪家公司", K::kFact, "founded"},
    {"{X}创立了什么", K::kFact, "founded"},
    {"{X}创办了什么公司", K::kFact, "founded"},
    {"{X}创办了哪家公司", K::kFact, "founded"},
    {"{X}创办了什么", K::kFact, "founded"},
    {"{X}创立了哪些公司", K::kFact, "founded"},
    {"{X}创办了哪些公司", K::kFact, "founded"},
    {"{X}毕业于哪里", K::kFact, "education"},
    {"{X}毕业于哪所大学", K::kFact, "education"},
    {"{X}毕业于哪所学校", K::kFact, "education"},
    {"{X}在哪里上的大学", K::kFact, "education"},
    {"{X}是哪个学校毕业的", K::kFact, "education"},
    {"{X}的母校是哪里", K::kFact, "education"},
    {"{X}隶属于哪里", K::kFact, "part_of"},
    {"{X}隶属于哪家公司", K::kFact, "part_of"},
    {"{X}属于哪家公司", K::kFact, "part_of"},
    {"{X}是哪家公司的子公司", K::kFact, "part_of"},
    {"{X}属于哪个项目", K::kFact, "part_of"},
    {"{X}隶属于什么", K::kFact, "part_of"},
    {"{X}投资了哪些公司", K::kFact, "invested_in"},
    {"{X}投资了什么", K::kFact, "invested_in"},
    {"{X}投资了哪些项目", K::kFact, "invested_in"},
    {"{X}投资了谁", K::kFact, "invested_in"},
    {"{X}投了哪些公司", K::kFact, "invested_in"},
    {"{X}投资了哪家公司", K::kFact, "invested_in"},
    {"{X}参加了哪些会议", K::kFact, "attended"},
    {"{X}参加了什么", K::kFact, "attended"},
    {"{X}参加了哪些活动", K::kFact, "attended"},
    {"{X}出席了哪些会议", K::kFact, "attended"},
    {"{X}收购了哪些公司", K::kFact, "acquired"},
    {"{X}收购了什么", K::kFact, "acquired"},
    {"{X}什么时候出生", K::kFact, "born"},
    {"{X}是什么时候出生的", K::kFact, "born"},
    {"{X}的生日是什么时候", K::kFact, "born"},
    {"{X}的生日是哪天", K::kFact, "born"},
    {"{X}出生于哪一年", K::kFact, "born"},
    {"{X}哪年出生", K::kFact, "born"},
    {"{X}是什么时候成立的", K::kFact, "founded"},
    {"{X}什么时候成立", K::kFact, "founded"},
    {"{X}成立于哪一年", K::kFact, "founded"},
    {"{X}成立于什么时候", K::kFact, "founded"},
    {"{X}是哪一年成立的", K::kFact, "founded"},
    {"{X}是什么时候创立的", K::kFact, "founded"},
    {"{X}什么时候创立", K::kFact, "founded"},
    {"{X}哪年成立", K::kFact, "founded"},
    {"{X}的状态是什么", K::kFact, "status"},
    {"{X}是什么状态", K::kFact, "status"},
    {"{X}的状态", K::kFact, "status"},
    {"关于{X}有哪些矛盾的信息", K::kConflict, ""},
    {"关于{X}有哪些矛盾", K::kConflict, ""},
    {"关于{X}有什么矛盾", K::kConflict, ""},
    {"关于{X}有哪些冲突", K::kConflict, ""},
    {"关于{X}的信息有冲突吗", K::kConflict, ""},
    {"{X}的信息有冲突吗", K::kConflict, ""},
    {"{X}有哪些矛盾的信息", K::kConflict, ""},
    {"{X}有哪些冲突的事实", K::kConflict, ""},
    {"{X}有矛盾吗", K::kConflict, ""},
    {"{X}的信息有矛盾吗", K::kConflict, ""},
    {"{X}有哪些相互矛盾的信息", K::kConflict, ""},
    {"{X}有什么冲突", K::kConflict, ""},
    {"{X}的事实有冲突吗", K::kConflict, ""},
    {"关于{X}有冲突吗", K::kConflict, ""},
    {"{X}的矛盾信息", K::kConflict, ""},
    {"{X}有冲突的信息吗", K::kConflict, ""},
    {"{X}存在哪些矛盾", K::kConflict, ""},
    {"{X}存在矛盾吗", K::kConflict, ""},
    {"关于{X}存在哪些矛盾", K::kConflict, ""},
    {"关于{X}的记录有矛盾吗", K::kConflict, ""},
    {"{X}的记录有矛盾吗", K::kConflict, ""},
    {"关于{X}有哪些相互矛盾的记录", K::kConflict, ""},
    {"关于{X}有哪些不一致", K::kConflict, ""},
    {"{X}有哪些不一致的信息", K::kConflict, ""},
    {"{X}的信息有哪些不一致", K::kConflict, ""},
    {"{X}的所在地有冲突吗", K::kConflict, "location"},
    {"有哪些矛盾的事实", K::kConflict, ""},
    {"有哪些冲突", K::kConflict, ""},
    {"有哪些矛盾", K::kConflict, ""},
    {"列出所有冲突", K::kConflict, ""},
    {"知识库里有哪些矛盾", K::kConflict, ""},
    {"{X}和{Y}之间有什么联系", K::kPath, ""},
    {"{X}和{Y}有什么联系", K::kPath, ""},
    {"{X}和{Y}有什么关系", K::kPath, ""},
    {"{X}与{Y}有什么关系", K::kPath, ""},
    {"{X}与{Y}有什么联系", K::kPath, ""},
    {"{X}与{Y}之间有什么联系", K::kPath, ""},
    {"{X}和{Y}之间有什么关系", K::kPath, ""},
    {"{X}与{Y}之间有什么关系", K::kPath, ""},
    {"{X}和{Y}是怎么联系起来的", K::kPath, ""},
    {"{X}和{Y}是怎么关联的", K::kPath, ""},
    {"{X}是怎么和{Y}联系起来的", K::kPath, ""},
    {"{X}如何与{Y}关联", K::kPath, ""},
    {"{X}跟{Y}有什么关系", K::kPath, ""},
    {"{X}和{Y}是什么关系", K::kPath, ""},
    {"{X}与{Y}是什么关系", K::kPath, ""},
    {"{X}和{Y}之间的联系", K::kPath, ""},
    {"{X}和{Y}如何关联", K::kPath, ""},
    {"{X}怎样联系到{Y}", K::kPath, ""},
    {"{X}和{Y}之间是什么关系", K::kPath, ""},
    {"{X}跟{Y}之间有什么联系", K::kPath, ""},
    {"{X}与{Y}是如何关联的", K::kPath, ""},
    {"{X}和{Y}是如何关联的", K::kPath, ""},
    {"{X}和{Y}是怎么连起来的", K::kPath, ""},
    {"{X}通过什么和{Y}联系", K::kPath, ""},
    {"{X}什么时候{Y}", K::kWhen, ""},
    {"{X}是什么时候{Y}", K::kWhen, ""},
    {"{X}何时{Y}", K::kWhen, ""},
    {"{X}哪天{Y}", K::kWhen, ""},
    {"{X}于何时{Y}", K::kWhen, ""},
    {"{X}在什么时候{Y}", K::kWhen, ""},
    {"{X}是哪天{Y}", K::kWhen, ""},
    {"{X}哪一年{Y}", K::kWhen, ""},
    {"{X}是哪一年{Y}", K::kWhen, ""},
    {"{X}有什么变化", K::kWhen, ""},
    {"{X}发生了什么", K::kWhen, ""},
    {"{X}有哪些变化", K::kWhen, ""},
    {"{X}有什么进展", K::kWhen, ""},
    {"{X}最近有什么动态", K::kWhen, ""},
    {"{X}的时间线", K::kWhen, ""},
    {"{X}有哪些进展", K::kWhen, ""},
    {"{X}有什么新动态", K::kWhen, ""},
    {"{X}发生了哪些事", K::kWhen, ""},
    {"{X}有哪些动态", K::kWhen, ""},
    {"{X}都发生了什么", K::kWhen, ""},
    {"{X}有哪些事件", K::kWhen, ""},
    {"发生了什么", K::kWhen, ""},
    {"有哪些事件", K::kWhen, ""},
    {"{X}在哪家{_}工作", K::kFact, "works_at"},
    {"{X}在哪个{_}工作", K::kFact, "works_at"},
    {"{X}在什么{_}工作", K::kFact, "works_at"},
    {"{X}在哪家{_}任职", K::kFact, "works_at"},
    {"{X}参加过哪些{_}", K::kFact, "attended"},
    {"{X}参加了哪些{_}", K::kFact, "attended"},
    {"{X}出席过哪些{_}", K::kFact, "attended"},
    {"{X}出席了哪些{_}", K::kFact, "attended"},
    {"{X}在{_}担任什么职位", K::kFact, "role"},
    {"{X}在{_}担任什么职务", K::kFact, "role"},
    {"{X}在{_}的职位是什么", K::kFact, "role"},
    {"{X}在{_}是什么职位", K::kFact, "role"},
    {"{X}是哪一天成立的", K::kFact, "founded"},
    {"{X}是哪天成立的", K::kFact, "founded"},
    {"{X}成立于哪一天", K::kFact, "founded"},
    {"{X}是哪一年创立的", K::kFact, "founded"},
    {"{X}和{Y}之间有什么关联", K::kPath, ""},
    {"{X}和{Y}有什么关联", K::kPath, ""},
    {"{X}与{Y}有什么关联", K::kPath, ""},
    {"{X}与{Y}之间有什么关联", K::kPath, ""},
    {"哪些{_}投资了{X}", K::kInverse, "invested_in"},
    {"哪些{_}参加了{X}", K::kInverse, "attended"},
    {"哪些{_}在{X}工作", K::kInverse, "works_at"},
};

bool Begins(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool Finishes(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.substr(s.size() - p.size()) == p;
}

// The literal parts of a template around its slots: "{X}的创始人是谁" -> "", "的创始人是谁".
std::vector<std::string_view> Literals(std::string_view t) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (true) {
    const size_t slot = t.find('{', i);
    out.push_back(t.substr(i, slot == std::string_view::npos ? std::string_view::npos : slot - i));
    if (slot == std::string_view::npos) break;
    i = t.find('}', slot) + 1;
  }
  return out;
}

size_t LiteralSize(std::string_view t) {
  size_t n = 0;
  for (std::string_view l : Literals(t)) n += l.size();
  return n;
}

// A slot's text, cleaned: quotes, brackets and a link's [[ ]] taken off.
std::string CleanName(std::string_view s) {
  s = common::TrimSpace(s);
  for (auto [open, close] : std::initializer_list<std::pair<std::string_view, std::string_view>>{
           {"[[", "]]"}, {"\"", "\""}, {"“", "”"}, {"「", "」"}, {"《", "》"}, {"'", "'"}, {"‘", "’"}}) {
    if (s.size() > open.size() + close.size() && Begins(s, open) && Finishes(s, close)) {
      s = common::TrimSpace(s.substr(open.size(), s.size() - open.size() - close.size()));
    }
  }
  return std::string(s);
}

// Matches q (as compared) against a template; slots are cut from `written`
// (same byte offsets). Slots are non-empty; a slot followed by a literal ends
// at that literal's first occurrence.
bool Match(std::string_view t, std::string_view q, std::string_view written, std::vector<std::string>* slots) {
  const std::vector<std::string_view> lit = Literals(t);
  std::vector<char> names;  // 'X', 'Y' or '_' (any words, not kept) per slot
  for (size_t i = t.find('{'); i != std::string_view::npos; i = t.find('{', i + 1)) names.push_back(t[i + 1]);
  if (!Begins(q, lit[0])) return false;
  size_t at = lit[0].size();
  slots->clear();
  for (size_t i = 1; i < lit.size(); ++i) {
    size_t end;
    if (i + 1 == lit.size()) {  // the last literal ends the question
      if (!Finishes(q, lit[i]) || q.size() < at + lit[i].size()) return false;
      end = q.size() - lit[i].size();
    } else {
      end = q.find(lit[i], at + 1);
      if (end == std::string_view::npos) return false;
    }
    if (end <= at) return false;
    std::string name = CleanName(written.substr(at, end - at));
    if (name.empty() || name.size() > 200) return false;
    if (names[i - 1] != '_') slots->push_back(std::move(name));
    at = end + lit[i].size();
  }
  return lit.size() > 1 || q.size() == lit[0].size();
}

// The end of the period a date names: "2023" -> "2023-12-31", "2023-05" -> "2023-05-31".
std::string PeriodEnd(const std::string& d) {
  if (d.size() == 4) return d + "-12-31";
  if (d.size() == 7) return d + "-31";
  return d.substr(0, 10);
}

// A date that is the whole of s: the forms a timeline accepts, or a month
// name alone ("March": of this year).
std::string WholeDate(std::string_view s, std::string_view year) {
  s = common::TrimSpace(s);
  size_t used = 0;
  std::string d = text::ParseLeadingDate(s, &used);
  if (!d.empty() && used == s.size()) return d;
  // "mid-2025", "early 2025", "late 2025", "the start of 2026", "the end of 2025".
  const std::string low = common::AsciiLower(s);
  for (auto [prefix, suffix] :
       std::initializer_list<std::pair<std::string_view, std::string_view>>{{"mid-", "-06-30"},
                                                                            {"mid ", "-06-30"},
                                                                            {"early ", "-03-31"},
                                                                            {"late ", "-12-31"},
                                                                            {"the start of ", "-01-01"},
                                                                            {"the beginning of ", "-01-01"},
                                                                            {"start of ", "-01-01"},
                                                                            {"the end of ", "-12-31"},
                                                                            {"end of ", "-12-31"}}) {
    if (!Begins(low, prefix)) continue;
    std::string_view rest = s.substr(prefix.size());
    size_t n = 0;
    std::string y = text::ParseLeadingDate(rest, &n);
    if (y.size() == 4 && n == rest.size()) return y + std::string(suffix);
  }
  static constexpr std::array<std::string_view, 12> kMonths = {"january",   "february", "march",    "april",
                                                               "may",       "june",     "july",     "august",
                                                               "september", "october",  "november", "december"};
  const std::string lower = common::AsciiLower(s);
  for (size_t m = 0; m < kMonths.size(); ++m) {
    if (lower == kMonths[m] || (lower.size() == 3 && Begins(kMonths[m], lower))) {
      char buf[16];
      std::snprintf(buf, sizeof buf, "-%02zu", m + 1);
      return std::string(year) + buf;
    }
  }
  return "";
}

// Takes the time words off an English question: "… in 2023", "… as of May
// 2024", "… since March", "… now".
void TakeEnglishTime(std::string* q, GraphQuestion* out, std::string_view year) {
  for (bool again = true; again;) {
    again = false;
    const std::string lower = common::AsciiLower(*q);
    for (std::string_view w : {" right now", " now", " currently", " today", " these days", " at the moment"}) {
      if (Finishes(lower, w)) {
        q->resize(q->size() - w.size());
        again = true;
        break;
      }
    }
    if (again) continue;
    for (std::string_view w : {" as of ", " back in ", " in ", " during ", " on ", " at the end of ", " since ",
                               " after ", " until ", " before ", " by "}) {
      const size_t at = lower.rfind(w);
      if (at == std::string::npos) continue;
      const std::string d = WholeDate(std::string_view(*q).substr(at + w.size()), year);
      if (d.empty()) continue;
      if (w == " since " || w == " after ")
        out->since = d;
      else if (w == " until " || w == " before ")
        out->until = d;
      else
        out->as_of = PeriodEnd(d), out->period = d;
      q->resize(at);
      again = true;
      break;
    }
  }
  // "currently" inside: "where does X currently work", "X's current role".
  for (std::string_view w : {" currently ", " now ", " current ", " present "}) {
    const size_t at = common::AsciiLower(*q).find(w);
    if (at != std::string::npos) q->erase(at, w.size() - 1);
  }
}

// The same for Chinese: "2023年，…", "在2023年…", "…自2026年3月以来…", "现在".
void TakeChineseTime(std::string* q, GraphQuestion* out) {
  for (std::string_view w : {"现在", "目前", "如今", "当前", "当下", "眼下"}) {
    size_t at;
    while ((at = q->find(w)) != std::string::npos) q->erase(at, w.size());
  }
  size_t i = 0;
  while (i < q->size()) {
    const char c = (*q)[i];
    if (c < '0' || c > '9') {
      ++i;
      continue;
    }
    size_t used = 0;
    const std::string d = text::ParseLeadingDate(std::string_view(*q).substr(i), &used);
    if (d.empty()) {
      while (i < q->size() && (*q)[i] >= '0' && (*q)[i] <= '9') ++i;
      continue;
    }
    size_t start = i, end = i + used;
    const std::string_view before = std::string_view(*q).substr(0, start);
    const std::string_view after = std::string_view(*q).substr(end);
    bool since = false, until = false;
    for (std::string_view p : {"自从", "自", "从", "打"}) {
      if (Finishes(before, p)) {
        start -= p.size();
        since = true;
        break;
      }
    }
    for (std::string_view s : {"以来", "之后", "以后", "起", "后"}) {
      if (Begins(after, s)) {
        end += s.size();
        since = true;
        break;
      }
    }
    if (!since) {
      for (std::string_view s : {"之前", "以前", "前"}) {
        if (Begins(std::string_view(*q).substr(end), s)) {
          end += s.size();
          until = true;
          break;
        }
      }
    }
    if (!since && !until) {
      if (Finishes(std::string_view(*q).substr(0, start), "在")) start -= 3;
      for (std::string_view s : {"时", "的时候", "底", "末"}) {
        if (Begins(std::string_view(*q).substr(end), s)) {
          end += s.size();
          break;
        }
      }
    }
    // A bare "2026" in "the May 18, 2026 product review" is part of a name, not the question's time.
    const std::string_view said = std::string_view(*q).substr(i, used);
    const bool chinese_date = said.find("年") != std::string_view::npos || said.find("月") != std::string_view::npos;
    if (!since && !until && !chinese_date && !Finishes(std::string_view(*q).substr(0, start), "在")) {
      i += used;
      continue;
    }
    if (since)
      out->since = d;
    else if (until)
      out->until = d;
    else
      out->as_of = PeriodEnd(d), out->period = d;
    if (Begins(std::string_view(*q).substr(end), "，") || Begins(std::string_view(*q).substr(end), ",")) {
      end += Begins(std::string_view(*q).substr(end), "，") ? 3 : 1;
    }
    q->erase(start, end - start);
    i = start;
  }
}

}  // namespace

const char* QuestionKindName(QuestionKind kind) {
  switch (kind) {
    case QuestionKind::kNone:
      return "none";
    case QuestionKind::kFact:
      return "fact";
    case QuestionKind::kInverse:
      return "relation";
    case QuestionKind::kConflict:
      return "conflict";
    case QuestionKind::kPath:
      return "path";
    case QuestionKind::kWhen:
      return "when";
  }
  return "none";
}

GraphQuestion ParseQuestion(std::string_view query) {
  GraphQuestion out;
  std::string q(common::TrimSpace(query));
  if (q.empty() || q.size() > 1000) return out;
  // Trailing punctuation.
  for (bool again = true; again && !q.empty();) {
    again = false;
    for (std::string_view p : {"?", "？", "。", ".", "!", "！", " "}) {
      if (Finishes(q, p)) {
        q.resize(q.size() - p.size());
        again = true;
      }
    }
  }
  for (size_t at; (at = q.find("’")) != std::string::npos;) q.replace(at, 3, "'");
  const std::string year = common::NowIso8601().substr(0, 4);
  TakeEnglishTime(&q, &out, year);
  TakeChineseTime(&q, &out);
  q = std::string(common::TrimSpace(q));
  if (Begins(common::AsciiLower(q), "and ")) q.erase(0, 4);
  const std::string lower = common::AsciiLower(q);
  // Both tables, most specific template first.
  static const std::vector<const Template*> kOrdered = [] {
    std::vector<const Template*> all;
    for (const Template& t : kEnglish) all.push_back(&t);
    for (const Template& t : kChinese) all.push_back(&t);
    std::stable_sort(all.begin(), all.end(),
                     [](const Template* a, const Template* b) { return LiteralSize(a->text) > LiteralSize(b->text); });
    return all;
  }();
  std::vector<std::string> slots;
  for (const Template* t : kOrdered) {
    if (!Match(t->text, lower, q, &slots)) continue;
    out.kind = t->kind;
    out.predicate = std::string(t->predicate);
    if (!slots.empty()) out.entity = slots[0];
    // "what happened in 2026": the period bounds the timeline.
    if (t->kind == QuestionKind::kWhen && !out.period.empty() && out.since.empty() && out.until.empty()) {
      out.since = out.until = out.period;
      out.as_of.clear();
    }
    if (slots.size() > 1) {
      if (t->kind == QuestionKind::kWhen) {
        out.topic = slots[1];
        while (Finishes(out.topic, "的")) out.topic.resize(out.topic.size() - 3);
      } else {
        out.other = slots[1];
      }
    }
    return out;
  }
  // Cue words.
  auto has = [&](std::initializer_list<std::string_view> words) {
    return std::any_of(words.begin(), words.end(),
                       [&](std::string_view w) { return lower.find(w) != std::string::npos; });
  };
  out.text = q;
  out.names_in_query = true;
  if (has({"conflict", "contradict", "disagree", "inconsistent", "consistent", "矛盾", "冲突", "衝突", "不一致"})) {
    out.kind = QuestionKind::kConflict;
  } else if (has({"connected", "connection", "related to", "relationship", "link between", "联系", "關係", "关系",
                  "关联", "關聯"})) {
    out.kind = QuestionKind::kPath;
  } else if (has({"when ", "what date", "which day", "什么时候", "什麼時候", "哪天", "哪一天", "何时", "哪年", "哪一年",
                  "几月"})) {
    out.kind = QuestionKind::kWhen;
    out.topic = q;
  } else if (!out.since.empty() || !out.until.empty()) {
    out.kind = QuestionKind::kWhen;
  } else {
    return GraphQuestion{};
  }
  return out;
}

}  // namespace engram::graph
