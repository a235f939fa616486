# ruff: noqa: E501
"""The conversation set: a person's saved chat logs (many short ``- **speaker:** text`` turns a page) and
questions about single lines, times and people in them, for bench/retrieval.py.

    python bench/convo_set.py            # (re)writes bench/convo/vault/ and bench/convo/questions.tsv

Written for this project (issue 32), deterministic (a fixed seed), not derived from any public benchmark.
Sam's conversations with friends, family, colleagues and an assistant, 2024: each session page holds a
handful of turns that answer one question each, among many everyday turns drawn from a shared pool, so that
every page shares words (names, "dinner", "kitchen", "flight") with the questions of other pages. A few prose
notes on the same subjects are there to share words without holding the answer.

Questions are split by position into ``choose`` (even: any weight or threshold may be chosen on them) and
``report`` (odd: never looked at while choosing; only reported). A page's date sits in its frontmatter, in
its title, or in both.
"""

from __future__ import annotations

import random
from pathlib import Path

OUT = Path(__file__).resolve().parent / "convo"

# (file stem, frontmatter date or "", partner, facts): a fact is (speaker, turn, question, kind)
# kinds: line (what was said), time (when something is/was), person (who said or did it)
# fmt: off
SESSIONS: list[tuple[str, str, str, list[tuple[str, str, str, str]]]] = [
    ('2024-01-06 Ana', '', 'Ana', [
        ('Ana', 'the plumber said the kitchen tap just needs a new ceramic cartridge, about 30 quid', 'what does the kitchen tap need according to the plumber', 'line'),
        ('Ana', "I'm flying to Lisbon on the 19th for my cousin Rita's christening", 'when is Ana flying to Lisbon', 'time'),
        ('Sam', 'I finally booked the boiler service, a guy called Marek is coming on Thursday morning', 'who is coming to service the boiler', 'person'),
        ('Ana', 'try the Georgian place on Fenwick Street, the khachapuri is unreal', 'which restaurant did Ana recommend and what dish', 'line'),
        ('Sam', 'my new running shoes are Brooks Ghost 15, half a size up', 'what running shoes did Sam buy', 'line'),
    ]),
    ('Chat with Ben - moving flat', '2024-01-14', 'Ben', [
        ('Ben', 'the van is booked from Hertz for Saturday the 27th, 8am pickup', "when is Ben's moving van picked up", 'time'),
        ('Ben', 'new flat is on Alder Road, third floor, no lift, sorry in advance', "what floor is Ben's new flat on", 'line'),
        ('Sam', 'I can bring my cousin Dev to help carry the sofa', 'who can Sam bring to help carry the sofa', 'person'),
        ('Ben', 'deposit was 1,450 and the landlord wants it by bank transfer only', "how much was the deposit on Ben's new flat", 'line'),
        ('Ben', 'the broadband is Zen, engineer comes on the 2nd of February', "when does the broadband engineer come to Ben's flat", 'time'),
    ]),
    ('2024-01-22 Priya standup notes', '2024-01-22', 'Priya', [
        ('Priya', 'the billing migration is slipping to March because of the VAT rounding bug', 'why is the billing migration slipping', 'line'),
        ('Priya', 'Hugo from finance owns the sign-off for the new invoice template', 'who signs off the new invoice template', 'person'),
        ('Sam', "I'll pair with Lena on the retry queue on Wednesday", 'who will Sam pair with on the retry queue', 'person'),
        ('Priya', 'offsite is in Bristol, 14 to 15 March, hotel near Temple Meads', 'where and when is the team offsite', 'time'),
        ('Priya', 'we are dropping Jenkins entirely, everything moves to GitHub Actions by end of Q1', 'what CI system is the team moving to', 'line'),
    ]),
    ('Mum - Sunday call', '2024-02-04', 'Mum', [
        ('Mum', "your dad's hip operation is booked for the 11th of April at St Mary's", "when is dad's hip operation", 'time'),
        ('Mum', 'Auntie Joan finally sold the caravan, to a couple from Whitby', "who bought Auntie Joan's caravan", 'person'),
        ('Mum', "the recipe for the lemon drizzle uses two lemons and a spoon of yoghurt, that's the trick", "what is the trick in mum's lemon drizzle recipe", 'line'),
        ('Sam', "I'll come up the weekend after Easter and take the train to York", 'when will Sam visit mum', 'time'),
        ('Mum', 'the cat has been on a renal diet since the vet saw her bloods', 'why is the cat on a special diet', 'line'),
    ]),
    ('2024-02-10 Jess climbing', '', 'Jess', [
        ('Jess', 'I sent the overhang project at the Castle, the pink V5', 'what climbing problem did Jess send', 'line'),
        ('Jess', 'my finger pulley is still sore, physio said no crimping for six weeks', 'what did the physio tell Jess', 'line'),
        ('Sam', 'Tom lent me his old La Sportiva shoes to try before I buy', 'who lent Sam climbing shoes', 'person'),
        ('Jess', 'the Fontainebleau trip is 3 to 10 May, we have a gite near Milly-la-Foret', 'when is the Fontainebleau trip', 'time'),
        ('Jess', 'the new wall in Hackney does a 20 pound intro session on Tuesdays', 'how much is the intro session at the new climbing wall', 'line'),
    ]),
    ('Assistant - sourdough', '2024-02-18', 'Assistant', [
        ('Assistant', 'if the crumb is gummy, bake 10 minutes longer with the lid off and let it cool two hours before slicing', 'how do I fix a gummy sourdough crumb', 'line'),
        ('Sam', 'my starter is called Doughvid and lives in the fridge between bakes', "what is Sam's sourdough starter called", 'line'),
        ('Assistant', 'for a 75 percent hydration loaf use 375 g water to 500 g flour', 'how much water for a 75 percent hydration loaf', 'line'),
        ('Sam', 'my neighbour Tomás gave me a banneton for my birthday', 'who gave Sam a banneton', 'person'),
        ('Assistant', 'an overnight cold retard of 12 to 14 hours gives a more sour loaf', 'how long should the cold retard be for a sour loaf', 'time'),
    ]),
    ('2024-03-01 Tomas', '', 'Tomás', [
        ('Tomás', 'the council is cutting the plane trees on our street on the 18th, move the car', 'when is the council cutting the trees on the street', 'time'),
        ('Tomás', 'my daughter Inés got into Leeds to study architecture', "which university did Tomás's daughter get into", 'line'),
        ('Sam', 'the parcel for number 12 is in my porch, a big box from IKEA', "what parcel is in Sam's porch", 'line'),
        ('Tomás', 'the fence panel blew down, Gary from the corner shop knows a fencer', 'who knows a fencer', 'person'),
        ('Tomás', "I'm away in Valencia from the 22nd, can you water the tomatoes", 'when is Tomás away in Valencia', 'time'),
    ]),
    ('Chat with Ana - birthday plans', '2024-03-09', 'Ana', [
        ('Ana', "let's do Chloe's surprise party at the Crown, upstairs room, Friday 5 April", "where is Chloe's surprise party", 'line'),
        ('Ana', 'Marcus is doing the playlist, he promised no ABBA this time', 'who is doing the playlist for the party', 'person'),
        ('Sam', "I ordered the cake from Bea's Bakery, carrot with cream cheese icing", 'what cake did Sam order', 'line'),
        ('Ana', "budget is 25 each for the present, we're getting her a pottery course", 'what present are they getting Chloe', 'line'),
        ('Ana', 'guests should arrive by half seven, she gets there at eight', 'what time should guests arrive at the party', 'time'),
    ]),
    ('2024-03-16 Priya 1-1', '2024-03-16', 'Priya', [
        ('Priya', 'your promotion case goes to the panel on the 30th of April', "when does Sam's promotion case go to the panel", 'time'),
        ('Priya', 'the feedback from Oskar was that your design docs are the clearest on the team', 'what feedback did Oskar give about Sam', 'line'),
        ('Sam', 'I want to mentor the new grad, Aisha, when she starts', 'who does Sam want to mentor', 'person'),
        ('Priya', 'training budget this year is 1,200 per person and conferences count', 'how big is the training budget', 'line'),
        ('Priya', "I'm on parental leave from June, Oskar covers my reports", "who covers Priya's reports during parental leave", 'person'),
    ]),
    ('Ben - car trouble', '2024-03-24', 'Ben', [
        ('Ben', 'garage says the clutch is gone, 680 quid with labour', "how much does Ben's clutch repair cost", 'line'),
        ('Ben', 'Kemal at Riverside Motors did it cheaper than the dealer', "which mechanic fixed Ben's car", 'person'),
        ('Sam', 'you can borrow my bike until the 5th, the lock code is 4471', "what is the code for Sam's bike lock", 'line'),
        ('Ben', "MOT is due on 12 June, I'll book it with the same garage", "when is Ben's MOT due", 'time'),
        ('Ben', "I'm thinking of selling it and getting a used Zoe, electric", 'what car is Ben thinking of getting', 'line'),
    ]),
    ('2024-04-02 Assistant travel Japan', '', 'Assistant', [
        ('Assistant', 'a 7-day JR Pass no longer pays off for Tokyo-Kyoto-Osaka alone; buy single Shinkansen tickets', 'is the JR pass worth it for Tokyo Kyoto Osaka', 'line'),
        ('Sam', 'we land at Haneda on 21 October at 6:40 in the morning', 'when does Sam land in Tokyo', 'time'),
        ('Assistant', 'book the Ghibli Museum on the 10th of the month before, at 10am Japan time', 'when do Ghibli Museum tickets go on sale', 'time'),
        ('Sam', "Ana's friend Kenji offered to show us around Nakameguro", 'who offered to show Sam around Nakameguro', 'person'),
        ('Assistant', 'in Kyoto stay near Shijo or Kawaramachi to walk to Gion at night', 'where should Sam stay in Kyoto', 'line'),
    ]),
    ('Mum - Easter', '2024-04-07', 'Mum', [
        ('Mum', 'the operation went fine, dad is walking with one crutch already', 'how is dad after the operation', 'line'),
        ('Mum', 'your cousin Dev is getting married in September, in Leicester', 'who is getting married in September', 'person'),
        ('Sam', 'I left my grey scarf on the hook by the back door', 'where did Sam leave the scarf', 'line'),
        ('Mum', 'the physio comes to the house every Tuesday and Friday for six weeks', 'when does the physio visit dad', 'time'),
        ('Mum', 'Mrs Patel next door brought round a whole tray of samosas', 'who brought samosas round', 'person'),
    ]),
    ('2024-04-20 Jess', '2024-04-20', 'Jess', [
        ('Jess', 'my finger is fine now, I did the Arete at Stanage on Saturday', 'what route did Jess do at Stanage', 'line'),
        ('Jess', "Karim is driving to Font, we're splitting petrol four ways", 'who is driving to Fontainebleau', 'person'),
        ('Sam', 'I bought a Black Diamond crash pad second hand for 90', 'what crash pad did Sam buy', 'line'),
        ('Jess', 'ferry is Dover to Calais at 6:05 on Friday the 3rd', 'what time is the ferry to Calais', 'time'),
        ('Jess', 'bring a toothbrush for cleaning holds, the sandstone gets greasy', 'why should Sam bring a toothbrush on the trip', 'line'),
    ]),
    ('Chat with Tomás - garden', '2024-05-12', 'Tomás', [
        ('Tomás', 'plant the courgettes out after the last frost, around the 20th of May here', 'when should Sam plant the courgettes out', 'time'),
        ('Tomás', 'slugs hate coffee grounds, ring the seedlings with them', 'what keeps slugs off the seedlings', 'line'),
        ('Sam', 'Ana gave me three tomato plants, a Sungold and two San Marzano', 'who gave Sam tomato plants', 'person'),
        ('Tomás', 'the allotment society waiting list is two years, put your name down now', 'how long is the allotment waiting list', 'time'),
        ('Tomás', 'my compost bin is full, you can have half of the leaf mould', 'what did Tomás offer Sam from his compost', 'line'),
    ]),
    ('2024-05-25 Priya', '', 'Priya', [
        ('Priya', 'the panel approved your promotion, effective 1 July', "when is Sam's promotion effective", 'time'),
        ('Priya', 'Lena will take over the retry queue when you move to the platform team', 'who takes over the retry queue', 'person'),
        ('Sam', "I'd like to present the outage write-up at the engineering all-hands", 'what does Sam want to present at the all-hands', 'line'),
        ('Priya', 'the postmortem found the cause was an expired TLS certificate on the payment gateway', 'what caused the outage', 'line'),
        ('Priya', 'my last day before leave is 7 June, send me anything urgent before then', "when is Priya's last day before leave", 'time'),
    ]),
    ('Ben - new job', '2024-06-08', 'Ben', [
        ('Ben', 'I got the job at Octopus, starting on the 15th of July', 'when does Ben start his new job', 'time'),
        ('Ben', 'the interview panel was led by a woman called Farah who used to work at Monzo', "who led Ben's interview panel", 'person'),
        ('Sam', "let's celebrate at the Indian place on Brick Lane, my treat", "where will they celebrate Ben's new job", 'line'),
        ('Ben', 'salary is 62k plus a 10 percent bonus, way better than now', 'what salary did Ben get', 'line'),
        ('Ben', "I have to give four weeks notice, so I'll tell my manager on Monday", 'how much notice does Ben have to give', 'time'),
    ]),
    ('2024-06-22 Assistant budgeting', '2024-06-22', 'Assistant', [
        ('Assistant', 'with 2,900 take-home, the 50/30/20 split gives 1,450 needs, 870 wants, 580 savings', 'how much should Sam save each month under the 50/30/20 split', 'line'),
        ('Sam', 'my rent goes up to 1,150 from August', "when does Sam's rent go up", 'time'),
        ('Assistant', 'move the emergency fund to an easy-access saver paying 4.8 percent', 'where should the emergency fund go', 'line'),
        ('Sam', 'my friend Marcus uses a spreadsheet from his accountant sister', 'whose sister made the budgeting spreadsheet', 'person'),
        ('Assistant', 'cancel the gym if you climb three times a week, it costs 45 a month you do not use', 'which subscription did the assistant suggest cancelling', 'line'),
    ]),
    ('Ana - holiday', '2024-07-13', 'Ana', [
        ('Ana', "we're in Crete from 2 to 12 August, a village called Plakias", 'where is Ana going on holiday', 'line'),
        ('Ana', "can you feed Biscuit while I'm away, the key is with Chloe", "who has the key to Ana's flat", 'person'),
        ('Sam', 'Biscuit gets half a pouch morning and evening, no dry food', 'how much food does Biscuit get', 'line'),
        ('Ana', "I'm back late on the 12th, the flight lands at Gatwick at 23:50", "what time does Ana's flight land", 'time'),
        ('Ana', "the Georgian place closed down, it's a vape shop now, tragic", 'what happened to the Georgian restaurant', 'line'),
    ]),
    ('2024-08-03 Jess', '', 'Jess', [
        ('Jess', "I'm doing the Three Peaks challenge on 14 September for the hospice", 'when is Jess doing the Three Peaks challenge', 'time'),
        ('Jess', 'Karim and Aoife are driving the support car', 'who is driving the support car for the Three Peaks', 'person'),
        ('Sam', "I'll sponsor you 50 and share the JustGiving page at work", 'how much will Sam sponsor Jess', 'line'),
        ('Jess', 'the hardest bit is Scafell Pike in the dark, we start it around 2am', 'which peak will they climb in the dark', 'line'),
        ('Jess', 'training plan is hill reps on Parliament Hill every Wednesday', 'where does Jess do hill reps', 'line'),
    ]),
    ('Mum - summer', '2024-08-18', 'Mum', [
        ('Mum', "Dev's wedding is on the 21st of September at the Belmont hotel", "where is Dev's wedding", 'line'),
        ('Mum', 'Auntie Joan is having her cataracts done in October', 'who is having a cataract operation', 'person'),
        ('Sam', "I'll get the 9:32 train on Friday and hire a suit up there", 'which train will Sam take to the wedding', 'time'),
        ('Mum', 'dad has started bowls again, he plays Thursdays at the park', 'what sport has dad started again', 'line'),
        ('Mum', 'the new boiler was 2,300 in the end, fitted by a man called Stan', "who fitted mum's new boiler", 'person'),
    ]),
    ('2024-09-07 Priya team', '2024-09-07', 'Priya', [
        ('Priya', "I'm back from leave on 2 September, baby Rohan is sleeping through, mostly", "what is Priya's baby called", 'line'),
        ('Priya', 'Aisha shipped the invoice template on her own, Hugo was impressed', 'who shipped the invoice template', 'person'),
        ('Sam', "the platform team's quarterly planning is on the 19th, whole day", "when is the platform team's quarterly planning", 'time'),
        ('Priya', "we're hiring two seniors, the referral bonus is 3,000", 'how much is the referral bonus', 'line'),
        ('Priya', 'the Bristol offsite got moved to Manchester next year', "where is next year's offsite", 'line'),
    ]),
    ('Tomás - autumn', '2024-10-05', 'Tomás', [
        ('Tomás', 'Inés loves Leeds, she already joined the rowing club', 'what club did Inés join at Leeds', 'line'),
        ('Tomás', 'the bins change to Wednesday collection from November', 'when are the bins collected from November', 'time'),
        ('Sam', "I'm away in Japan until the 4th of November, Ana has my spare key", "who has Sam's spare key while he is in Japan", 'person'),
        ('Tomás', "your courgettes won the street's biggest marrow contest, 4.2 kilos", "how heavy was Sam's winning marrow", 'line'),
        ('Tomás', "I'll keep an eye on the house and take in the post", 'what will Tomás do while Sam is away', 'line'),
    ]),
    ('2024-11-09 Ben', '', 'Ben', [
        ('Ben', 'first month at Octopus done, my manager Farah is brilliant', "who is Ben's manager at Octopus", 'person'),
        ('Ben', 'I sold the car to a student for 2,100 and bought a Brompton', 'how much did Ben sell his car for', 'line'),
        ('Sam', 'Japan was amazing, the best meal was a tiny yakitori bar in Nakameguro Kenji took us to', 'what was the best meal in Japan', 'line'),
        ('Ben', "Christmas is at mum's this year, I'm driving up on the 23rd", 'when is Ben driving up for Christmas', 'time'),
        ('Ben', "I'm running the Brighton half marathon in April, signed up yesterday", 'which race did Ben sign up for', 'line'),
    ]),
    ('Assistant - Christmas presents', '2024-12-01', 'Assistant', [
        ('Assistant', 'for a keen gardener under 40, a Niwaki pruning shear or a kneeler with tool pockets', 'what present ideas for a gardener under 40', 'line'),
        ('Sam', 'Tomás is the gardener, mum wants a digital photo frame', 'who wants a digital photo frame', 'person'),
        ('Assistant', 'order by 18 December for standard delivery before Christmas', 'what is the last order date for delivery before Christmas', 'time'),
        ('Sam', "for Ben I'm thinking a Brompton saddle bag since he got the bike", 'what present is Sam considering for Ben', 'line'),
        ('Assistant', 'a Secret Santa cap of 20 keeps the office exchange fair', 'what Secret Santa limit did the assistant suggest', 'line'),
    ]),
]

# Everyday turns: shared names and words so that pages compete on wording. {p} is the partner.
FILLER = [
    'haha yes', 'ok sounds good', 'how was your weekend?', 'busy, but fine', 'lol', 'same here honestly',
    'did you see the match on Saturday?', 'we should get dinner soon', 'the kitchen is a mess again',
    'work has been mad this week', "I'm so tired, slept badly", 'what are you up to tonight?',
    'nothing much, cooking and a film', 'the weather has been awful', 'my phone is dying, one sec',
    'did Ana reply to you?', 'Ben said he might come too', 'I need to book a flight soon', 'the train was late again',
    'say hi to {p} for me', 'let me check my calendar', 'Thursday works for me', 'maybe next week?',
    "I'll text you later", 'the dentist moved my appointment again', 'the boiler is making that noise again',
    "I've been running in the mornings", 'Mum called earlier, all good', 'did you watch that documentary?',
    'the new series is good, episode three is the best', 'I burnt the dinner lol', 'traffic was horrendous',
    'the office heating is broken', 'my back is killing me', 'we had a team lunch, pizza again', "it's raining again",
    'the cat knocked a plant over', "I'm at the shop, need anything?", 'ugh mondays',
    'have you been to the new place on the high street?', 'Priya says hi', 'the kids next door are loud',
    "I'm thinking of a holiday somewhere warm", 'the car needs washing', 'bank holiday plans?',
    "I'm finally reading that book you lent me", 'my sister says hi', 'the garden is overgrown', 'I owe you a coffee',
    'morning!', 'night!', 'talk tomorrow', 'sorry, was in a meeting', 'what time works?', 'the party was fun',
    "I'm going climbing later", 'the flat is freezing', 'did you get my email?', 'check the group chat',
    'the plumber never showed up', 'I need a haircut', 'our landlord finally replied', 'payday tomorrow thank god',
    'the gym was packed', "I'm trying to eat less sugar", 'work trip next month, not excited',
    'the post office queue was huge', 'new phone who dis', 'I lost my keys again, found them in the fridge',
    'ok see you then', 'love that',
]
# fmt: on

# Prose notes on the same subjects: they share words with many questions and answer none.
NOTES = {
    "Notes/Kitchen and house jobs.md": (
        "# Kitchen and house jobs\n\nThings to sort in the flat this year: the kitchen tap drips, the boiler "
        "needs its yearly service, the fence panel out the back is loose and the bike lock is rusty. A plumber "
        "quoted for the tap but never came back; the boiler man wants a morning slot. Ask the neighbours who "
        "they use for fences and whether the council is doing anything about the street trees.\n"
    ),
    "Notes/Travel ideas.md": (
        "# Travel ideas\n\nPlaces to go: Japan (Tokyo, Kyoto, Osaka, maybe the Ghibli Museum), Crete in "
        "summer, Lisbon for a long weekend, climbing in Fontainebleau in spring. Flights are cheapest from "
        "Gatwick midweek. The JR pass question keeps coming up; a ferry to Calais is easier than flying to "
        "France with crash pads. Look at when flights land, hotel areas, and who can show us around.\n"
    ),
    "Notes/Money.md": (
        "# Money\n\nRent, the emergency fund, the training budget at work, the gym subscription, birthday and "
        "Christmas presents, sponsoring friends for challenges, deposits on flats and car repairs all come out "
        "of the same account. A salary rise would help; promotion and bonus timing matter. Keep a spreadsheet.\n"
    ),
    "Notes/Family.md": (
        "# Family\n\nMum and dad in York: dad's hip, the physio visits, bowls at the park, the new boiler. "
        "Auntie Joan, the caravan and her eyes. Cousin Dev's wedding in September at a hotel. Ben's new job, "
        "his car and his half marathon. Christmas at mum's; who is driving up and when.\n"
    ),
    "Notes/Work.md": (
        "# Work\n\nBilling migration, invoice template, retry queue, the platform team, quarterly planning, "
        "offsites, promotion panel, mentoring the new grad, the outage postmortem, hiring seniors and the "
        "referral bonus, parental leave cover, CI moving off Jenkins. Priya is my manager; Oskar and Lena are "
        "on the team; Hugo is in finance.\n"
    ),
    "Notes/Climbing.md": (
        "# Climbing\n\nBouldering at the Castle and the new wall in Hackney, grit at Stanage, Fontainebleau in "
        "May with Jess, Karim and Tom. Finger pulley injuries: rest, physio, no crimping. Shoes, crash pads, "
        "brushes for greasy holds. Three Peaks for the hospice in September.\n"
    ),
    "Notes/Garden.md": (
        "# Garden\n\nCourgettes, tomatoes (Sungold, San Marzano), slugs, compost and leaf mould, the allotment "
        "waiting list, watering when away, the street's marrow contest. Frost dates matter for planting out; "
        "ask Tomás, who knows everything about the garden.\n"
    ),
}

SEED = 32
TURNS = (26, 60)  # everyday turns per session: a range, so some pages are long


def _page(stem: str, date: str, partner: str, facts: list[tuple[str, str, str, str]], rng: random.Random) -> str:
    fillers = rng.sample(FILLER, rng.randint(*TURNS) if len(FILLER) >= TURNS[1] else len(FILLER))
    turns: list[tuple[str, str]] = []
    for i, text in enumerate(fillers):
        turns.append(("Sam" if i % 2 == 0 else partner, text.format(p=partner)))
    for speaker, text, _, _ in facts:
        turns.insert(rng.randint(1, len(turns)), (speaker, text))
    head = f"---\ndate: {date}\ntags: [chat]\npeople: [{partner}]\n---\n" if date else ""
    title = stem
    body = "\n".join(f"- **{speaker}:** {text}" for speaker, text in turns)
    return f"{head}# {title}\n\n{body}\n"


def write(out: Path = OUT) -> int:
    rng = random.Random(SEED)
    vault = out / "vault"
    vault.mkdir(parents=True, exist_ok=True)
    rows = ["id\tlang\tkind\tquery\trelevant\tsplit"]
    n = 0
    for stem, date, partner, facts in SESSIONS:
        rel = f"Chats/{stem}.md"
        (vault / rel).parent.mkdir(parents=True, exist_ok=True)
        (vault / rel).write_text(_page(stem, date, partner, facts, rng), encoding="utf-8")
        for _, _, question, kind in facts:
            n += 1
            rows.append(f"c{n:03d}\ten\t{kind}\t{question}\t{rel}\t{'choose' if n % 2 == 0 else 'report'}")
    for rel, text in NOTES.items():
        (vault / rel).parent.mkdir(parents=True, exist_ok=True)
        (vault / rel).write_text(text, encoding="utf-8")
    (out / "questions.tsv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    return n


if __name__ == "__main__":
    print(f"wrote {len(SESSIONS)} sessions, {len(NOTES)} notes, {write()} questions under {OUT}")
